//! Pseudo consoles, starting a program on one, and Job Objects on Windows.
//!
//! A session's terminal is a pseudo console (`CreatePseudoConsole`), made
//! here rather than through portable-pty, whose ConPTY backend always
//! passes the flags `INHERIT_CURSOR | RESIZE_QUIRK | WIN32_INPUT_MODE`: the
//! first makes the console host ask for the cursor position (`ESC[6n`) and
//! wait for the answer before the program starts, a hang wherever nobody
//! answers. The flags are the caller's ([`ConPtyFlags`]); the default is
//! node-pty's, none.
//!
//! Two pipes carry the console: one the program's screen out as VT
//! sequences, the other typed input in. The console host (`conhost.exe`,
//! or `OpenConsole.exe`) sits between them: it keeps its own screen buffer
//! and writes what changed, so output can come reordered against what the
//! program wrote, and the first frame starts with a clear (node-pty sees
//! the same; see docs/how-it-works.md).
//!
//! Every session's processes are held in a Job Object of their own, so that
//! ending a tree does not depend on walking parent pids (which Windows
//! reuses and does not reparent): [`Job::terminate`] ends every process in
//! it at once. A program is created suspended (`CREATE_SUSPENDED`),
//! assigned to its job, and only then resumed ([`Suspended::resume_in`]),
//! so no child it starts can escape the job.
//!
//! `CreatePseudoConsole` and its two siblings are looked up in
//! `kernel32.dll` when first used (Windows 10 1809 and later have them),
//! so the addon still loads where they are missing, and pipes still work
//! there.

use std::ffi::{OsStr, OsString};
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsHandle, AsRawHandle, BorrowedHandle, FromRawHandle, OwnedHandle};
use std::path::Path;
use std::sync::OnceLock;

use windows_sys::Win32::Foundation::{HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Console::{COORD, HPCON};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, TerminateJobObject,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Pipes::CreatePipe;
use windows_sys::Win32::System::Threading::{
    CREATE_SUSPENDED, CREATE_UNICODE_ENVIRONMENT, CreateProcessW, DeleteProcThreadAttributeList,
    EXTENDED_STARTUPINFO_PRESENT, InitializeProcThreadAttributeList, OpenThread,
    PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, PROCESS_INFORMATION, ResumeThread, STARTF_USESTDHANDLES,
    STARTUPINFOEXW, THREAD_SUSPEND_RESUME, TerminateProcess, UpdateProcThreadAttribute,
};

use super::ConPtyFlags;
use crate::core::fds::RawFd;

type CreateFn = unsafe extern "system" fn(COORD, HANDLE, HANDLE, u32, *mut HPCON) -> i32;
type ResizeFn = unsafe extern "system" fn(HPCON, COORD) -> i32;
type CloseFn = unsafe extern "system" fn(HPCON);

/// The pseudo console functions of this Windows.
struct ConPtyApi {
    create: CreateFn,
    resize: ResizeFn,
    close: CloseFn,
}

/// Looks the three functions up in `kernel32.dll` once; `None` where this
/// Windows has no pseudo console.
fn api() -> Option<&'static ConPtyApi> {
    static API: OnceLock<Option<ConPtyApi>> = OnceLock::new();
    API.get_or_init(|| {
        let name = wide(OsStr::new("kernel32.dll"));
        // SAFETY: a NUL-terminated name; kernel32 is loaded in every process.
        let module = unsafe { GetModuleHandleW(name.as_ptr()) };
        if module.is_null() {
            return None;
        }
        // SAFETY: NUL-terminated names; each pointer found has the
        // documented signature of that function.
        unsafe {
            let create = GetProcAddress(module, c"CreatePseudoConsole".as_ptr().cast())?;
            let resize = GetProcAddress(module, c"ResizePseudoConsole".as_ptr().cast())?;
            let close = GetProcAddress(module, c"ClosePseudoConsole".as_ptr().cast())?;
            Some(ConPtyApi {
                create: std::mem::transmute::<unsafe extern "system" fn() -> isize, CreateFn>(
                    create,
                ),
                resize: std::mem::transmute::<unsafe extern "system" fn() -> isize, ResizeFn>(
                    resize,
                ),
                close: std::mem::transmute::<unsafe extern "system" fn() -> isize, CloseFn>(close),
            })
        }
    })
    .as_ref()
}

fn hresult(hr: i32) -> std::io::Error {
    // An HRESULT made from a Win32 error (FACILITY_WIN32) carries the code.
    if (hr as u32) & 0xFFFF_0000 == 0x8007_0000 {
        let os = std::io::Error::from_raw_os_error((hr as u32 & 0xFFFF) as i32);
        return std::io::Error::new(os.kind(), format!("{os} (HRESULT {:#010x})", hr as u32));
    }
    if hr as u32 == 0x8000_4001 {
        return std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "not implemented here (E_NOTIMPL, HRESULT 0x80004001)",
        );
    }
    std::io::Error::other(format!("HRESULT {:#010x}", hr as u32))
}

fn size(cols: u16, rows: u16) -> COORD {
    // The console's coordinates are i16: clamp what a u16 holds beyond.
    COORD {
        X: cols.min(i16::MAX as u16) as i16,
        Y: rows.min(i16::MAX as u16) as i16,
    }
}

/// A pseudo console; closed (`ClosePseudoConsole`) when dropped, which ends
/// the programs still attached to it and, once they are gone, the output
/// pipe.
#[derive(Debug)]
pub struct PseudoConsole(HPCON);

// SAFETY: an HPCON is a handle the console functions take from any thread.
unsafe impl Send for PseudoConsole {}
// SAFETY: as above; ResizePseudoConsole may be called concurrently.
unsafe impl Sync for PseudoConsole {}

/// A new pseudo console and the pipe ends the session keeps.
pub struct Opened {
    /// The console.
    pub console: PseudoConsole,
    /// Typed input goes here.
    pub input: std::fs::File,
    /// The program's screen, as VT sequences, comes from here.
    pub output: std::fs::File,
}

impl PseudoConsole {
    /// Creates a pseudo console of `cols` × `rows` with `flags`.
    pub fn open(cols: u16, rows: u16, flags: ConPtyFlags) -> std::io::Result<Opened> {
        let api = api().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this Windows has no pseudo console (CreatePseudoConsole needs Windows 10 1809 or later)",
            )
        })?;
        let (input_read, input) = pipe()?;
        let (output, output_write) = pipe()?;
        let mut hpc: HPCON = 0;
        // SAFETY: valid pipe handles; the console host duplicates them, so
        // ours are closed below when they drop.
        let hr = unsafe {
            (api.create)(
                size(cols, rows),
                input_read.as_raw_handle(),
                output_write.as_raw_handle(),
                flags.bits(),
                &mut hpc,
            )
        };
        if hr < 0 {
            return Err(hresult(hr));
        }
        drop((input_read, output_write));
        Ok(Opened {
            console: PseudoConsole(hpc),
            input: std::fs::File::from(input),
            output: std::fs::File::from(output),
        })
    }

    /// Resizes the console (`ResizePseudoConsole`); the program gets a
    /// `WINDOW_BUFFER_SIZE_EVENT`.
    pub fn resize(&self, cols: u16, rows: u16) -> std::io::Result<()> {
        let api = api().expect("a console exists, so the functions were found");
        // SAFETY: a console we created and have not closed.
        let hr = unsafe { (api.resize)(self.0, size(cols, rows)) };
        if hr < 0 {
            return Err(hresult(hr));
        }
        Ok(())
    }
}

impl Drop for PseudoConsole {
    fn drop(&mut self) {
        if let Some(api) = api() {
            // SAFETY: a console we created, closed once.
            unsafe { (api.close)(self.0) };
        }
    }
}

/// An anonymous pipe: (read end, write end), neither inheritable.
fn pipe() -> std::io::Result<(OwnedHandle, OwnedHandle)> {
    let mut read: HANDLE = std::ptr::null_mut();
    let mut write: HANDLE = std::ptr::null_mut();
    // SAFETY: out-pointers to two handles; no security attributes.
    if unsafe { CreatePipe(&mut read, &mut write, std::ptr::null(), 0) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: two handles we just created, owned from here on.
    Ok(unsafe {
        (
            OwnedHandle::from_raw_handle(read),
            OwnedHandle::from_raw_handle(write),
        )
    })
}

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

/// A process created suspended: it runs no instruction until
/// [`Suspended::resume_in`] put it in its job and resumed it. Dropped
/// without that, it is terminated.
#[derive(Debug)]
pub struct Suspended {
    process: Option<OwnedHandle>,
    /// The main thread; `None` for a process std created (found by pid).
    thread: Option<OwnedHandle>,
    pid: u32,
}

impl Suspended {
    /// A suspended process std's `Command` made (`CREATE_SUSPENDED` in its
    /// creation flags); its main thread is found when it is resumed.
    pub fn from_std(child: &std::process::Child) -> std::io::Result<Suspended> {
        let process = child.as_handle().try_clone_to_owned()?;
        Ok(Suspended {
            process: Some(process),
            thread: None,
            pid: child.id(),
        })
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Assigns the process to `job`, then resumes it; the process handle.
    /// On failure the process is terminated.
    pub fn resume_in(mut self, job: &Job) -> std::io::Result<OwnedHandle> {
        let process = self.process.as_ref().expect("not resumed yet");
        job.assign(process.as_handle())?;
        let thread = match self.thread.take() {
            Some(thread) => thread,
            None => main_thread(self.pid)?,
        };
        // SAFETY: a valid thread handle with THREAD_SUSPEND_RESUME.
        if unsafe { ResumeThread(thread.as_raw_handle()) } == u32::MAX {
            return Err(std::io::Error::last_os_error());
        }
        Ok(self.process.take().expect("not resumed yet"))
    }
}

impl Drop for Suspended {
    fn drop(&mut self) {
        if let Some(process) = &self.process {
            // SAFETY: a valid process handle; it never ran.
            unsafe { TerminateProcess(process.as_raw_handle(), 1) };
        }
    }
}

/// The one thread of a suspended process `pid` (ToolHelp's thread list),
/// opened to resume it.
fn main_thread(pid: u32) -> std::io::Result<OwnedHandle> {
    // SAFETY: returns a new snapshot handle or INVALID_HANDLE_VALUE.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a handle we just created.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(snapshot) };
    // SAFETY: THREADENTRY32 is plain data; dwSize set as the API requires.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    // SAFETY: a valid snapshot and entry.
    let mut more = unsafe { Thread32First(snapshot.as_raw_handle(), &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: returns a new handle or null.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if thread.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: a handle we just opened.
            return Ok(unsafe { OwnedHandle::from_raw_handle(thread) });
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot.as_raw_handle(), &mut entry) } != 0;
    }
    Err(std::io::Error::from(std::io::ErrorKind::NotFound))
}

/// What [`start_on_console`] starts.
pub struct Program<'a> {
    /// The executable, found already (`lpApplicationName`).
    pub program: &'a Path,
    /// The arguments, `argv[0]` first; quoted into one command line.
    pub argv: &'a [OsString],
    /// The whole environment.
    pub env: &'a [(String, String)],
    /// The working directory.
    pub cwd: &'a Path,
}

/// Creates `program` suspended on `console`, with null standard handles
/// (`STARTF_USESTDHANDLES`), as node-pty does: the program does not inherit
/// this process's own standard handles, and Windows gives it the console's.
/// No handle is inherited. Resume it with [`Suspended::resume_in`].
pub fn start_on_console(console: &PseudoConsole, program: &Program) -> std::io::Result<Suspended> {
    let mut list_size = 0usize;
    // SAFETY: asks for the size of a one-attribute list (fails by design).
    unsafe { InitializeProcThreadAttributeList(std::ptr::null_mut(), 1, 0, &mut list_size) };
    // usize-aligned storage for the opaque list.
    let mut storage = vec![0usize; list_size.div_ceil(std::mem::size_of::<usize>())];
    let list = storage.as_mut_ptr().cast();
    // SAFETY: `list` points at `list_size` writable bytes.
    if unsafe { InitializeProcThreadAttributeList(list, 1, 0, &mut list_size) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    struct ListGuard(windows_sys::Win32::System::Threading::LPPROC_THREAD_ATTRIBUTE_LIST);
    impl Drop for ListGuard {
        fn drop(&mut self) {
            // SAFETY: an initialised list, deleted once.
            unsafe { DeleteProcThreadAttributeList(self.0) };
        }
    }
    let _guard = ListGuard(list);
    // SAFETY: the attribute takes the HPCON value itself (not a pointer to
    // it), as documented; the list outlives CreateProcessW.
    if unsafe {
        UpdateProcThreadAttribute(
            list,
            0,
            PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE as usize,
            console.0 as *const std::ffi::c_void,
            std::mem::size_of::<HPCON>(),
            std::ptr::null_mut(),
            std::ptr::null(),
        )
    } == 0
    {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: STARTUPINFOEXW is plain data; zero is its empty value.
    let mut info: STARTUPINFOEXW = unsafe { std::mem::zeroed() };
    info.StartupInfo.cb = std::mem::size_of::<STARTUPINFOEXW>() as u32;
    info.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    info.lpAttributeList = list;
    let application = wide(program.program.as_os_str());
    let mut line = wide(&command_line(program.argv));
    let env = env_block(program.env);
    let cwd = wide(program.cwd.as_os_str());
    // SAFETY: PROCESS_INFORMATION is plain data.
    let mut pi: PROCESS_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated wide strings and an environment block that
    // live through the call; the command line buffer is writable.
    let ok = unsafe {
        CreateProcessW(
            application.as_ptr(),
            line.as_mut_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED,
            env.as_ptr().cast(),
            cwd.as_ptr(),
            &info.StartupInfo,
            &mut pi,
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: CreateProcessW returned two new handles, owned from here on.
    let (process, thread) = unsafe {
        (
            OwnedHandle::from_raw_handle(pi.hProcess),
            OwnedHandle::from_raw_handle(pi.hThread),
        )
    };
    Ok(Suspended {
        process: Some(process),
        thread: Some(thread),
        pid: pi.dwProcessId,
    })
}

/// `s` as a NUL-terminated UTF-16 string.
fn wide(s: &OsStr) -> Vec<u16> {
    s.encode_wide().chain(std::iter::once(0)).collect()
}

/// The command line for `argv` (see [`super::cmdline`]).
pub fn command_line(argv: &[OsString]) -> OsString {
    use std::os::windows::ffi::OsStringExt;
    let args: Vec<Vec<u16>> = argv.iter().map(|a| a.encode_wide().collect()).collect();
    OsString::from_wide(&super::cmdline::join(&args))
}

/// A `CREATE_UNICODE_ENVIRONMENT` block: `NAME=value` strings sorted by
/// name without regard to case (as Windows keeps them), each NUL-ended,
/// then one more NUL.
fn env_block(env: &[(String, String)]) -> Vec<u16> {
    let mut vars: Vec<&(String, String)> = env.iter().collect();
    vars.sort_by_key(|(k, _)| k.to_uppercase());
    let mut block: Vec<u16> = Vec::new();
    for (k, v) in vars {
        block.extend(k.encode_utf16());
        block.push(u16::from(b'='));
        block.extend(v.encode_utf16());
        block.push(0);
    }
    if block.is_empty() {
        block.push(0);
    }
    block.push(0);
    block
}

/// Resizes the pseudo console of the session whose terminal channel is
/// `fd`.
pub fn set_size(fd: RawFd, cols: u16, rows: u16) -> std::io::Result<()> {
    crate::core::session::sys::resize(fd, cols, rows)
}
