//! Pseudo consoles and Job Objects on Windows.
//!
//! A session's terminal is a pseudo console (`CreatePseudoConsole`, through
//! portable-pty's ConPTY backend): two pipes, one carrying the program's
//! screen out as VT sequences, the other carrying typed input in. The
//! console host (`conhost.exe`, or `OpenConsole.exe`) sits between them:
//! it keeps its own screen buffer and writes what changed, so output can
//! come reordered against what the program wrote, and the first frame
//! starts with a clear (node-pty sees the same; see docs/how-it-works.md).
//!
//! Every session's processes are held in a Job Object of their own, so that
//! ending a tree does not depend on walking parent pids (which Windows
//! reuses and does not reparent): [`Job::terminate`] ends every process in
//! it at once. The program is assigned right after `CreateProcess`
//! returns; a child it starts before that moment escapes the job (a
//! window of microseconds, the same one node-pty has).

use std::os::windows::io::{AsRawHandle, BorrowedHandle, FromRawHandle, OwnedHandle};

use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, TerminateJobObject,
};

use crate::core::fds::RawFd;

/// The Job Object that holds a session's processes.
#[derive(Debug)]
pub struct Job(OwnedHandle);

impl Job {
    /// A new, unnamed Job Object with no limits.
    pub fn new() -> std::io::Result<Job> {
        // SAFETY: no attributes, no name; returns a new handle or null.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a handle we just created, owned from here on.
        Ok(Job(unsafe { OwnedHandle::from_raw_handle(handle) }))
    }

    /// Puts the process behind `process` (and every process it starts from
    /// now on) into the job.
    pub fn assign(&self, process: BorrowedHandle<'_>) -> std::io::Result<()> {
        // SAFETY: both handles are valid for the call.
        if unsafe { AssignProcessToJobObject(self.0.as_raw_handle(), process.as_raw_handle()) } == 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Ends every process in the job with `code` (`TerminateJobObject`);
    /// false when the system refused.
    pub fn terminate(&self, code: u32) -> bool {
        // SAFETY: a valid job handle.
        unsafe { TerminateJobObject(self.0.as_raw_handle(), code) != 0 }
    }
}

/// Resizes the pseudo console of the session whose terminal channel is
/// `fd` (`ResizePseudoConsole`); the program gets a
/// `WINDOW_BUFFER_SIZE_EVENT`.
pub fn set_size(fd: RawFd, cols: u16, rows: u16) -> std::io::Result<()> {
    crate::core::session::sys::resize(fd, cols, rows)
}
