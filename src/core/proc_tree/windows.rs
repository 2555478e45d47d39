//! The process table on Windows: the ToolHelp snapshot
//! (`CreateToolhelp32Snapshot`: pid, parent pid, executable name) and each
//! process's creation time (`GetProcessTimes`, 100 ns units since 1601)
//! as its start time. Windows has no process groups or sessions in the Unix
//! sense: `pgid` and `sid` are 0, so nothing is ever signalled as a group;
//! a session's tree is ended by its Job Object instead (`core::pty`).
//!
//! Refusals: a process this user may not open (a service, another user's)
//! gets start time 0, which still names it while it lives; a signal to it
//! is not sent. Another process's command line is not read (it lives in
//! its memory): [`args`] is `None`, and lookups by executable or
//! environment find nothing.

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::Path;

use windows_sys::Win32::Foundation::{FILETIME, INVALID_HANDLE_VALUE, STILL_ACTIVE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_TERMINATE, TerminateProcess,
};

use super::{Pid, ProcInfo, ProcRef};
use crate::core::signal::Signal;

/// One snapshot entry: the facts and the executable's file name.
struct Entry {
    info: ProcInfo,
    name: String,
}

fn open(pid: Pid, access: u32) -> Option<OwnedHandle> {
    // SAFETY: OpenProcess returns a new handle or null.
    let handle = unsafe { OpenProcess(access, 0, pid as u32) };
    // SAFETY: a handle we just opened, owned from here on.
    (!handle.is_null()).then(|| unsafe { OwnedHandle::from_raw_handle(handle) })
}

/// The creation time of `pid` (100 ns units since 1601; 0 if refused) and
/// whether it has exited (a process whose handle someone still holds stays
/// in the table after its exit, as a zombie does on Unix).
fn start_and_exited(pid: Pid) -> (u64, bool) {
    let Some(handle) = open(pid, PROCESS_QUERY_LIMITED_INFORMATION) else {
        return (0, false);
    };
    let mut code = 0u32;
    // SAFETY: a valid handle; the call writes one u32.
    let has_exited = unsafe { GetExitCodeProcess(handle.as_raw_handle(), &mut code) } != 0
        && code != STILL_ACTIVE as u32;
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: a valid handle; the call writes four FILETIMEs we own.
    let ok = unsafe {
        GetProcessTimes(
            handle.as_raw_handle(),
            &mut created,
            &mut exited,
            &mut kernel,
            &mut user,
        )
    };
    if ok == 0 {
        return (0, has_exited);
    }
    let start = (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime);
    (start, has_exited)
}

/// The creation time of `pid` (see [`start_and_exited`]).
fn start_time(pid: Pid) -> u64 {
    start_and_exited(pid).0
}

/// Every process in a ToolHelp snapshot (empty if the snapshot fails).
fn snapshot() -> Vec<Entry> {
    // SAFETY: returns a new snapshot handle or INVALID_HANDLE_VALUE.
    let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    if raw == INVALID_HANDLE_VALUE {
        return Vec::new();
    }
    // SAFETY: a handle we just created, owned from here on.
    let snap = unsafe { OwnedHandle::from_raw_handle(raw) };
    let mut out = Vec::new();
    // SAFETY: an all-zero PROCESSENTRY32W is valid once dwSize is set.
    let mut entry: PROCESSENTRY32W = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
    // SAFETY: a valid snapshot and an entry with its size set.
    let mut more = unsafe { Process32FirstW(snap.as_raw_handle(), &mut entry) } != 0;
    while more {
        let len = entry
            .szExeFile
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(entry.szExeFile.len());
        let pid = entry.th32ProcessID as Pid;
        out.push(Entry {
            info: ProcInfo {
                pid,
                ppid: entry.th32ParentProcessID as Pid,
                pgid: 0,
                sid: 0,
                start_time: 0,
                state: 'R',
            },
            name: String::from_utf16_lossy(&entry.szExeFile[..len]),
        });
        // SAFETY: as above.
        more = unsafe { Process32NextW(snap.as_raw_handle(), &mut entry) } != 0;
    }
    out
}

/// `info` with its start time, and state `Z` once the process has exited.
fn with_start(mut info: ProcInfo) -> ProcInfo {
    let (start, exited) = start_and_exited(info.pid);
    info.start_time = start;
    if exited {
        info.state = 'Z';
    }
    info
}

/// Ends `proc` if it is still the same process: Windows has no signals, so
/// every signal but the console's own (`SIGINT`, `SIGBREAK`, `SIGWINCH`,
/// which only a console can deliver) and `SIGSTOP`/`SIGCONT` (nothing
/// stops a process from outside) is `TerminateProcess` with exit code 1.
pub(super) fn signal(proc: &ProcRef, signal: Signal) -> bool {
    if matches!(
        signal,
        Signal::SIGINT | Signal::SIGBREAK | Signal::SIGWINCH | Signal::SIGSTOP | Signal::SIGCONT
    ) {
        return false;
    }
    if start_time(proc.pid) != proc.start_time {
        return false;
    }
    let Some(handle) = open(proc.pid, PROCESS_TERMINATE) else {
        return false;
    };
    // SAFETY: a valid handle opened with PROCESS_TERMINATE.
    unsafe { TerminateProcess(handle.as_raw_handle(), 1) != 0 }
}

/// No exit event here: the caller polls.
pub(super) async fn exited(_target: &ProcRef) -> bool {
    false
}

pub(super) fn info(pid: Pid) -> Option<ProcInfo> {
    snapshot()
        .into_iter()
        .find(|e| e.info.pid == pid)
        .map(|e| with_start(e.info))
}

pub(super) fn find(pid: Pid) -> Option<ProcInfo> {
    info(pid)
}

pub(super) fn list() -> Vec<ProcInfo> {
    snapshot().into_iter().map(|e| with_start(e.info)).collect()
}

/// Windows has no process groups: no members.
pub(super) fn group_members(_pgid: Pid) -> Vec<ProcInfo> {
    Vec::new()
}

/// Another process's command line is not read on Windows.
pub(super) fn args(_proc: &ProcRef) -> Option<Vec<String>> {
    None
}

/// The executable's file name (`cmd.exe`), from the snapshot.
pub(super) fn program_name(pid: Pid) -> Option<String> {
    snapshot()
        .into_iter()
        .find(|e| e.info.pid == pid)
        .map(|e| e.name)
}

/// Not looked up on Windows (full image paths need each process opened).
pub(super) fn by_executable(_path: &Path) -> Vec<ProcRef> {
    Vec::new()
}

/// Not looked up on Windows (another process's environment is not read).
pub(super) fn left_behind(_sid: Pid, _name: &str, _value: &str) -> Vec<ProcRef> {
    Vec::new()
}

/// Windows has no process groups: nothing is sent.
pub(super) fn killpg(_pgid: Pid, _signal: Signal) -> bool {
    false
}

/// No group: 0, which [`super::group_signallable`] never signals.
pub(super) fn own_group() -> Pid {
    0
}
