//! The process table on macOS, where there is no `/proc`:
//!
//! - the pids from `proc_listallpids` (libproc);
//! - a row from `proc_pidinfo(PROC_PIDTBSDINFO)`: parent, group, status
//!   (`SZOMB` for a zombie) and start time (seconds and microseconds since
//!   the epoch, which with the pid identifies the process); the session
//!   from `getsid`; running or asleep from `proc_pidinfo(PROC_PIDTASKINFO)`;
//! - arguments and the initial environment from `sysctl(KERN_PROCARGS2)`
//!   (layout in `procargs`); the executable from `proc_pidpath`; the name
//!   from `proc_name`.
//!
//! The kernel shows every user's rows, but another user's arguments,
//! environment and executable only to root: for those, [`args`] is `None`,
//! [`by_executable`] does not see the process, and [`left_behind`] finds it
//! by its session only. There are no pidfds: signals are a checked
//! `kill(2)` and exit waits poll the table. Built for macOS and checked by
//! `cargo clippy` here; not run on a Mac by this project's CI.

use std::path::Path;

use nix::sys::signal::Signal;

use super::{Pid, ProcInfo, ProcRef, procargs, unix};

/// A checked `kill(2)` (macOS has no pidfds).
pub(super) fn signal(proc: &ProcRef, signal: Signal) -> bool {
    unix::kill_checked(proc, signal)
}

/// No exit event is used here: `false`, and the caller polls the table.
pub(super) async fn exited(_target: &ProcRef) -> bool {
    false
}

/// `proc_pidinfo(PROC_PIDTBSDINFO)` of `pid` (it answers for zombies too).
fn bsdinfo(pid: Pid) -> Option<libc::proc_bsdinfo> {
    // SAFETY: proc_bsdinfo is plain data; all zeroes is a valid value.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the buffer is `size` writable bytes; the kernel writes at
    // most that many and returns how many it wrote.
    let n = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            (&mut info as *mut libc::proc_bsdinfo).cast(),
            size,
        )
    };
    (n == size).then_some(info)
}

/// The state letter Linux would show. The BSD status says zombie, stopped
/// or being created; a live process is `SRUN` whether or not any thread
/// runs (the threads' states are Mach's), so, as `ps` does, it is `R` while
/// a thread is running (`proc_pidinfo(PROC_PIDTASKINFO)`) and `S` when all
/// sleep.
fn state_letter(pid: Pid, status: u32) -> char {
    match status {
        libc::SZOMB => 'Z',
        libc::SSTOP => 'T',
        libc::SIDL => 'R',
        _ if running_threads(pid) > 0 => 'R',
        _ => 'S',
    }
}

/// How many of `pid`'s threads are running now (0 when refused).
fn running_threads(pid: Pid) -> i32 {
    // SAFETY: proc_taskinfo is plain data; all zeroes is a valid value.
    let mut info: libc::proc_taskinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_taskinfo>() as libc::c_int;
    // SAFETY: the buffer is `size` writable bytes, as for `bsdinfo`.
    let n = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTASKINFO,
            0,
            (&mut info as *mut libc::proc_taskinfo).cast(),
            size,
        )
    };
    if n == size { info.pti_numrunning } else { 0 }
}

fn row(info: &libc::proc_bsdinfo) -> ProcInfo {
    let pid = info.pbi_pid as Pid;
    // SAFETY: getsid takes an integer and touches no memory of ours.
    let sid = unsafe { libc::getsid(pid) };
    ProcInfo {
        pid,
        ppid: info.pbi_ppid as Pid,
        pgid: info.pbi_pgid as Pid,
        // A zombie's session may be refused (-1): no session then.
        sid: sid.max(0),
        start_time: info
            .pbi_start_tvsec
            .saturating_mul(1_000_000)
            .saturating_add(info.pbi_start_tvusec),
        state: state_letter(pid, info.pbi_status),
    }
}

pub(super) fn info(pid: Pid) -> Option<ProcInfo> {
    bsdinfo(pid).map(|i| row(&i))
}

/// macOS pids never name threads: the same as [`info`].
pub(super) fn find(pid: Pid) -> Option<ProcInfo> {
    info(pid)
}

/// Every pid the kernel lists (`proc_listallpids`).
fn pids() -> Vec<Pid> {
    // SAFETY: with a null buffer the call only returns the number of pids.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    if count <= 0 {
        return Vec::new();
    }
    // Room for processes started between the two calls.
    let mut buf: Vec<Pid> = vec![0; count as usize + 64];
    let bytes = std::mem::size_of_val(buf.as_slice()) as libc::c_int;
    // SAFETY: the buffer is `bytes` writable bytes of pids; the call returns
    // how many pids it wrote.
    let n = unsafe { libc::proc_listallpids(buf.as_mut_ptr().cast(), bytes) };
    buf.truncate(n.max(0) as usize);
    buf
}

pub(super) fn list() -> Vec<ProcInfo> {
    pids().into_iter().filter_map(info).collect()
}

/// The group's members, from `proc_listpgrppids` (libproc).
pub(super) fn group_members(pgid: Pid) -> Vec<ProcInfo> {
    // Room for a few hundred members; a larger group is cut there.
    let mut buf: Vec<Pid> = vec![0; 512];
    let bytes = std::mem::size_of_val(buf.as_slice()) as libc::c_int;
    // SAFETY: the buffer is `bytes` writable bytes of pids; the call
    // returns how many pids it wrote.
    let n = unsafe { libc::proc_listpgrppids(pgid, buf.as_mut_ptr().cast(), bytes) };
    buf.truncate(n.max(0) as usize);
    buf.into_iter().filter_map(info).collect()
}

/// `sysctl(KERN_PROCARGS2)` for `pid`: its arguments and environment, or
/// `None` when the kernel refuses (another user's process, a zombie).
fn procargs(pid: Pid) -> Option<procargs::ProcArgs> {
    let mut argmax: libc::c_int = 0;
    let mut size = std::mem::size_of::<libc::c_int>();
    let mut mib = [libc::CTL_KERN, libc::KERN_ARGMAX];
    // SAFETY: the output buffer is one c_int, `size` says so.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            2,
            (&mut argmax as *mut libc::c_int).cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || argmax <= 0 {
        return None;
    }
    let mut buf = vec![0u8; argmax as usize];
    let mut size = buf.len();
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
    // SAFETY: the output buffer is `size` writable bytes; the kernel writes
    // at most that many and stores how many in `size`.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            buf.as_mut_ptr().cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    buf.truncate(size);
    procargs::parse(&buf)
}

/// Runs `read` on the process `proc` and keeps its answer only when `proc`
/// held its pid before and after (so the answer is its own).
fn of_same<T>(proc: &ProcRef, read: impl FnOnce() -> Option<T>) -> Option<T> {
    proc.info()?;
    let answer = read();
    proc.info()?;
    answer
}

pub(super) fn args(proc: &ProcRef) -> Option<Vec<String>> {
    match proc.info()? {
        // A zombie has no arguments left.
        i if i.exited() => Some(Vec::new()),
        _ => of_same(proc, || procargs(proc.pid)).map(|p| p.args),
    }
}

/// `proc_name` (libproc): the process's name as the kernel keeps it (at most
/// 32 bytes; `argv[0]` is not readable for another user's process). `None`
/// when the process is gone or the kernel refuses.
pub(super) fn program_name(pid: Pid) -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: proc_name writes at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::proc_name(pid, buf.as_mut_ptr().cast(), buf.len() as u32) };
    (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// `proc_pidpath`: the executable of `pid`, or `None` when refused.
fn executable(pid: Pid) -> Option<std::path::PathBuf> {
    let mut buf = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
    // SAFETY: proc_pidpath writes at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::proc_pidpath(pid, buf.as_mut_ptr().cast(), buf.len() as u32) };
    if n <= 0 {
        return None;
    }
    buf.truncate(n as usize);
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(buf).into())
}

pub(super) fn by_executable(path: &Path) -> Vec<ProcRef> {
    let resolved = std::fs::canonicalize(path).ok();
    list()
        .into_iter()
        .map(|i| i.as_ref())
        .filter(|p| {
            of_same(p, || executable(p.pid))
                .is_some_and(|exe| exe == path || Some(&exe) == resolved.as_ref())
        })
        .collect()
}

pub(super) fn left_behind(sid: Pid, name: &str, value: &str) -> Vec<ProcRef> {
    let me = std::process::id() as Pid;
    let needle = format!("{name}={value}");
    list()
        .into_iter()
        .filter(|i| i.pid != me && !i.exited())
        .filter(|i| {
            (sid > 0 && i.sid == sid)
                || of_same(&i.as_ref(), || procargs(i.pid))
                    .is_some_and(|p| p.env.iter().any(|e| e == needle.as_bytes()))
        })
        .map(|i| i.as_ref())
        .collect()
}
