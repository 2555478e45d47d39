//! The process table on Linux: `/proc`. Each row is one read of
//! `/proc/PID/stat`; a process's other files (`cmdline`, `environ`, `exe`)
//! are read through the same directory handle as its start time, so they
//! belong to the same process even when the pid is reused meanwhile.
//! Processes `/proc` hides from us (`hidepid`) are not in the table; the
//! command line and environment of another user's process may be refused,
//! which reads as none.

use std::path::Path;

use nix::sys::signal::Signal;

use super::{Pid, ProcInfo, ProcRef, pidfd, unix};

/// Sends `signal` through a verified pidfd, or a checked `kill(2)` where
/// pidfds are unavailable (kernels before 5.3, seccomp filters).
pub(super) fn signal(proc: &ProcRef, signal: Signal) -> bool {
    pidfd::signal(proc, signal).unwrap_or_else(|| unix::kill_checked(proc, signal))
}

/// Completes when `target` has exited, through its pidfd; `false` at once
/// when pidfds are unavailable (the caller polls the table).
pub(super) async fn exited(target: &ProcRef) -> bool {
    pidfd::exited(target).await
}

/// Copies `buf.len()` values from address `at` of the thread `tid` into
/// `buf` (`process_vm_readv`, ptrace access mode): `false` unless every
/// byte was read. For plain values only (numbers, `#[repr(C)]` records of
/// numbers), since any bytes may arrive.
pub(crate) fn read_memory<T: Copy>(tid: Pid, at: u64, buf: &mut [T]) -> bool {
    let len = std::mem::size_of_val(buf);
    if len == 0 {
        return true;
    }
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: len,
    };
    let remote = libc::iovec {
        iov_base: at as *mut libc::c_void,
        iov_len: len,
    };
    // SAFETY: `local` covers exactly `buf`, which is writable; the remote
    // range is only read by the kernel, in the other process.
    let n = unsafe { libc::process_vm_readv(tid, &local, 1, &remote, 1, 0) };
    n == len as isize
}

/// The table row of `pid`, if such a process exists.
pub(super) fn info(pid: Pid) -> Option<ProcInfo> {
    let stat = procfs::process::Process::new(pid).ok()?.stat().ok()?;
    Some(row(&stat))
}

/// The table row of the process `pid`: like [`info`], but None when `pid`
/// names a thread of another process (`/proc/<tid>` answers for threads too).
pub(super) fn find(pid: Pid) -> Option<ProcInfo> {
    let dir = procfs::process::Process::new(pid).ok()?;
    let stat = dir.stat().ok()?;
    (dir.status().ok()?.tgid == pid).then(|| row(&stat))
}

/// Every process visible to us.
pub(super) fn list() -> Vec<ProcInfo> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| p.ok()?.stat().ok())
        .map(|stat| row(&stat))
        .collect()
}

fn row(stat: &procfs::process::Stat) -> ProcInfo {
    ProcInfo {
        pid: stat.pid,
        ppid: stat.ppid,
        pgid: stat.pgrp,
        sid: stat.session,
        start_time: stat.starttime,
        state: stat.state,
    }
}

pub(super) fn args(proc: &ProcRef) -> Option<Vec<String>> {
    use std::io::Read;
    // The /proc/<pid> directory handle stays bound to the process it was
    // opened for, so the stat checked here and the command line read below
    // come from the same process even if the pid is reused in between.
    let dir = procfs::process::Process::new(proc.pid).ok()?;
    let stat = dir.stat().ok()?;
    if stat.starttime != proc.start_time {
        return None;
    }
    let mut raw = Vec::new();
    dir.open_relative("cmdline")
        .ok()?
        .read_to_end(&mut raw)
        .ok()?;
    Some(split_cmdline(&raw))
}

/// The name a terminal shows for process `pid` in its title: what node-pty
/// reports as a pty's `process`.
///
/// Linux: `argv[0]` from `/proc/<pid>/cmdline` (at most its first 4 KiB:
/// `bash`, `-bash` for a login shell, `/usr/bin/python3`), or
/// `/proc/<pid>/comm` when the command line is empty (a zombie, a kernel
/// thread). One small read of an in-memory file, cheap enough to poll.
/// `None` when the process is gone or `/proc` cannot be read (hidepid).
pub(super) fn program_name(pid: Pid) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    let mut file = std::fs::File::open(format!("/proc/{pid}/cmdline")).ok()?;
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if buf[..len].contains(&0) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let first = buf[..len].split(|&b| b == 0).next().unwrap_or_default();
    if !first.is_empty() {
        return Some(String::from_utf8_lossy(first).into_owned());
    }
    let comm = std::fs::read(format!("/proc/{pid}/comm")).ok()?;
    let comm = comm.strip_suffix(b"\n").unwrap_or(&comm);
    (!comm.is_empty()).then(|| String::from_utf8_lossy(comm).into_owned())
}

/// `argv` from the NUL-separated `/proc/<pid>/cmdline` (empty arguments kept).
fn split_cmdline(raw: &[u8]) -> Vec<String> {
    let raw = raw.strip_suffix(b"\0").unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Every process whose executable is `path` (compared after resolving
/// symbolic links, as the kernel reports executables). Processes whose
/// executable we may not read (other users') are not seen.
pub(super) fn by_executable(path: &Path) -> Vec<ProcRef> {
    let resolved = std::fs::canonicalize(path).ok();
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| {
        let p = p.ok()?;
        let exe = p.exe().ok()?;
        if exe != path && Some(&exe) != resolved.as_ref() {
            return None;
        }
        // Read after the exe through the same directory handle, so both
        // belong to one process.
        Some(row(&p.stat().ok()?).as_ref())
    })
    .collect()
}

/// Every live process that belongs to a program which has exited: the
/// members of its session `sid` (its `&` jobs: a session id is never handed
/// out again while a process still holds it) and every process whose initial
/// environment has `name=value` (a daemon that started a session of its own
/// keeps the environment it inherited). `name=value` is a marker the caller
/// put in the program's environment; a process that cleared its environment
/// and left the session is not found.
///
/// From `/proc/<pid>/stat` (session) and `/proc/<pid>/environ` (the
/// environment the process was started with, read through the same directory
/// handle as its start time). The environment of another user's process
/// cannot be read: such a process is found only by its session.
pub(super) fn left_behind(sid: Pid, name: &str, value: &str) -> Vec<ProcRef> {
    use std::io::Read;
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    let me = std::process::id() as Pid;
    let needle = format!("{name}={value}");
    all.filter_map(|p| {
        let p = p.ok()?;
        let stat = p.stat().ok()?;
        let info = row(&stat);
        if info.pid == me || info.exited() {
            return None;
        }
        if sid > 0 && info.sid == sid {
            return Some(info.as_ref());
        }
        let mut raw = Vec::new();
        p.open_relative("environ")
            .ok()?
            .read_to_end(&mut raw)
            .ok()?;
        raw.split(|&b| b == 0)
            .any(|entry| entry == needle.as_bytes())
            .then(|| info.as_ref())
    })
    .collect()
}

/// The group's members: the table, filtered (`/proc` has no index by group).
pub(super) fn group_members(pgid: Pid) -> Vec<ProcInfo> {
    let mut all = list();
    all.retain(|p| p.pgid == pgid);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmdline_keeps_empty_arguments() {
        assert_eq!(split_cmdline(b"sh\0-c\0\0x\0"), ["sh", "-c", "", "x"]);
        assert_eq!(split_cmdline(b""), Vec::<String>::new());
        assert_eq!(split_cmdline(b"prog"), ["prog"]);
    }
}
