//! The input state on Linux, from `/proc`. The job's members are found by
//! walking the session's process tree (`/proc/PID/task/TID/children`) and
//! keeping the processes of the foreground group (`/proc/PID/stat`). For
//! each thread that sleeps (`task/TID/stat` state `S`), `task/TID/syscall`
//! names the call it sleeps in and its arguments, decoded with the table of
//! the process's own ABI (`abi`, from the ELF header of `/proc/PID/exe`;
//! `syscalls` holds the tables):
//!
//! - `read`/`readv` of a descriptor;
//! - `select`/`pselect6`: the read set, read from the process's memory
//!   (`process_vm_readv`; the programs are the session's own descendants,
//!   which the kernel lets their ancestor read);
//! - `poll`/`ppoll`: the `pollfd` array, from the process's memory (its
//!   layout, `int` + two `short`s, is the same on every ABI);
//! - `epoll_wait`/`epoll_pwait`/`epoll_pwait2`: the `tfd:` lines of the
//!   epoll descriptor's `/proc/PID/fdinfo` entry (one level of nested epoll
//!   descriptors is followed).
//!
//! A descriptor is the terminal when `/proc/PID/task/TID/fd/N` is a
//! character device with the terminal's device number (`st_rdev`), or
//! `/dev/tty`'s (major 5, minor 0), through which a program reads its
//! controlling terminal (`getpass`, `less`) — never by path.
//! `/proc/PID/wchan` is not used: it names only the kernel function a thread
//! sleeps in, and a socket read sleeps in the same `wait_woken` as a
//! terminal read.
//!
//! Where the kernel refuses (a setuid program such as `sudo` or `passwd`,
//! which is not dumpable; a hardened `ptrace` policy; `/proc` not mounted),
//! or the program's ABI has no table here (x32, another architecture under
//! emulation), the answer is [`Reading::Unknown`], and the caller falls
//! back to the terminal's modes, the foreground group and a quiet timer.

use std::collections::HashSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use procfs::ProcError;
use procfs::process::{Process, Task};

use super::abi::{Abi, ELF_HEADER_LEN};
use super::syscalls::{self, Wait};
use super::{Call, Member, Reading};
use crate::core::proc_tree::Pid;
use crate::core::tty;

/// Processes looked at in one walk of the tree, at most.
const MAX_PROCESSES: usize = 4096;
/// `select` descriptors (bits) read from a process's memory, at most.
const MAX_SELECT_FDS: u64 = 1 << 16;
/// `pollfd` entries read from a process's memory, at most.
const MAX_POLL_FDS: u64 = 1 << 12;

/// What inspecting the job found so far.
#[derive(Default)]
struct Findings {
    refused: bool,
    running: bool,
    first: Option<Member>,
}

pub(super) fn foreground_reader(root: Pid, group: Pid, tty: u64) -> Reading {
    let mut found = Findings::default();
    // The group's leader first: most jobs are one process, and it is
    // found without walking the tree.
    let leader = match Process::new(group) {
        Ok(p) => match p.stat() {
            Ok(stat) if stat.pgrp == group => Some((p, stat.comm)),
            _ => None,
        },
        Err(ProcError::PermissionDenied(_)) => {
            found.refused = true;
            None
        }
        Err(_) => None,
    };
    if let Some((process, program)) = leader {
        let member = Member {
            pid: group,
            program,
        };
        if let Some(call) = blocked_on(&process, tty, &mut found) {
            return Reading::Blocked { member, call };
        }
        found.first = Some(member);
    }
    for (process, program) in members(root, group) {
        if process.pid == group {
            continue;
        }
        let member = Member {
            pid: process.pid,
            program,
        };
        if let Some(call) = blocked_on(&process, tty, &mut found) {
            return Reading::Blocked { member, call };
        }
        found.first.get_or_insert(member);
    }
    if found.refused {
        Reading::Unknown {
            member: found.first,
            running: found.running,
        }
    } else {
        Reading::NotBlocked {
            member: found.first,
        }
    }
}

/// The members of `group` among `root` and its descendants, with their
/// names. A job's processes are the session's descendants, unless their
/// parent died and they went to init: then only the leader (looked at
/// first) is found.
fn members(root: Pid, group: Pid) -> Vec<(Process, String)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        if seen.len() >= MAX_PROCESSES || !seen.insert(pid) {
            continue;
        }
        let Ok(process) = Process::new(pid) else {
            continue;
        };
        if let Ok(tasks) = process.tasks() {
            for task in tasks.flatten() {
                if let Ok(children) = task.children() {
                    todo.extend(children.into_iter().filter_map(|c| Pid::try_from(c).ok()));
                }
            }
        }
        match process.stat() {
            Ok(stat) if stat.pgrp == group => out.push((process, stat.comm)),
            _ => {}
        }
    }
    out
}

/// The call in which a thread of `process` sleeps reading the terminal.
fn blocked_on(process: &Process, tty: u64, found: &mut Findings) -> Option<Call> {
    let tasks = match process.tasks() {
        Ok(tasks) => tasks,
        // It exited meanwhile.
        Err(ProcError::NotFound(_)) => return None,
        Err(_) => {
            found.refused = true;
            return None;
        }
    };
    // Read once, when the first sleeping call is found.
    let mut abi: Option<Abi> = None;
    for task in tasks.flatten() {
        let state = match task.stat() {
            Ok(stat) => stat.state,
            // The thread ended meanwhile.
            Err(ProcError::NotFound(_)) => continue,
            Err(_) => {
                found.refused = true;
                continue;
            }
        };
        if state == 'R' {
            found.running = true;
        }
        if state != 'S' {
            continue;
        }
        let Some((nr, args)) = sleeping_call(&task, found) else {
            continue;
        };
        let abi = match abi {
            Some(abi) => abi,
            None => match process_abi(process.pid) {
                Ok(Some(read)) => *abi.insert(read),
                // An ABI without a table here: the call cannot be named.
                Ok(None) | Err(Refused) => {
                    found.refused = true;
                    return None;
                }
            },
        };
        let here = Thread {
            pid: process.pid,
            tid: task.tid,
            tty,
        };
        let Some(wait) = syscalls::decode(abi, nr, args) else {
            continue;
        };
        match here.reads_terminal(wait) {
            Some(Ok(call)) => return Some(call),
            Some(Err(Refused)) => found.refused = true,
            None => {}
        }
    }
    None
}

/// The call a sleeping thread is in, from `/proc/PID/task/TID/syscall`
/// (`None` when it is in none, or ended meanwhile; a refusal is noted).
fn sleeping_call(task: &Task, found: &mut Findings) -> Option<(i64, [u64; 6])> {
    let path = format!("/proc/{}/task/{}/syscall", task.pid, task.tid);
    match std::fs::read_to_string(path) {
        Ok(line) => syscalls::parse_line(&line),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => {
            found.refused = true;
            None
        }
    }
}

/// The syscall ABI of process `pid`, from its executable's ELF header
/// (`/proc/PID/exe`, which the kernel shows to whoever may read the
/// process's syscalls). `Ok(None)`: no ELF file, or an ABI without a table
/// here.
fn process_abi(pid: Pid) -> Result<Option<Abi>, Refused> {
    use std::io::Read;
    let mut header = [0u8; ELF_HEADER_LEN];
    let read = std::fs::File::open(format!("/proc/{pid}/exe"))
        .and_then(|mut exe| exe.read_exact(&mut header));
    match read {
        Ok(()) => Ok(Abi::from_elf_header(&header)),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(Refused),
        // Gone, or a file shorter than a header.
        Err(_) => Ok(None),
    }
}

/// The kernel refused to show a process's memory or descriptors.
struct Refused;

/// One sleeping thread, and the terminal's device number.
struct Thread {
    pid: Pid,
    tid: Pid,
    tty: u64,
}

impl Thread {
    /// `Some(Ok(call))` when `wait` waits for input from the terminal;
    /// `None` when it does not.
    fn reads_terminal(&self, wait: Wait) -> Option<Result<Call, Refused>> {
        let fd = |a: u64| i32::try_from(a).ok();
        match wait {
            Wait::Read { fd: n } => self.is_terminal(fd(n)?).then_some(Ok(Call::Read)),
            Wait::Select { nfds, read_set } => self
                .select_reads(nfds, read_set)
                .map(|r| r.map(|()| Call::Select)),
            Wait::Poll { fds, nfds } => self.poll_reads(fds, nfds).map(|r| r.map(|()| Call::Poll)),
            Wait::Epoll { epfd } => self
                .epoll_reads(fd(epfd)?, 1)
                .map(|r| r.map(|()| Call::Epoll)),
        }
    }

    /// `/proc/PID/task/TID/fd/N` is the terminal (by device number).
    fn is_terminal(&self, fd: i32) -> bool {
        let path = format!("/proc/{}/task/{}/fd/{fd}", self.pid, self.tid);
        std::fs::metadata(path).is_ok_and(|m| {
            m.file_type().is_char_device()
                && (m.rdev() == self.tty || m.rdev() == tty::controlling_tty_device())
        })
    }

    /// The read set at `set` (`nfds` bits) holds the terminal. Read as
    /// bytes: on a little-endian machine descriptor `n` is bit `n % 8` of
    /// byte `n / 8` whatever the width of the set's words (32-bit programs
    /// have 4-byte words).
    fn select_reads(&self, nfds: u64, set: u64) -> Option<Result<(), Refused>> {
        if set == 0 || nfds == 0 {
            return None;
        }
        let nfds = nfds.min(MAX_SELECT_FDS);
        let mut buf = vec![0u8; nfds.div_ceil(8) as usize];
        if let Err(refused) = self.read_memory(set, &mut buf) {
            return Some(Err(refused));
        }
        let found = (0..nfds)
            .any(|fd| buf[(fd / 8) as usize] & (1 << (fd % 8)) != 0 && self.is_terminal(fd as i32));
        found.then_some(Ok(()))
    }

    /// The `pollfd` array at `fds` (`nfds` entries) asks for input from
    /// the terminal.
    fn poll_reads(&self, fds: u64, nfds: u64) -> Option<Result<(), Refused>> {
        if fds == 0 || nfds == 0 {
            return None;
        }
        let empty = libc::pollfd {
            fd: -1,
            events: 0,
            revents: 0,
        };
        let mut buf = vec![empty; nfds.min(MAX_POLL_FDS) as usize];
        if let Err(refused) = self.read_memory(fds, &mut buf) {
            return Some(Err(refused));
        }
        let wants = libc::POLLIN | libc::POLLRDNORM | libc::POLLPRI;
        let found = buf
            .iter()
            .any(|p| p.fd >= 0 && p.events & wants != 0 && self.is_terminal(p.fd));
        found.then_some(Ok(()))
    }

    /// The epoll descriptor `epfd` watches the terminal for input (or,
    /// `depth` levels down, an epoll descriptor that does).
    fn epoll_reads(&self, epfd: i32, depth: u32) -> Option<Result<(), Refused>> {
        let path = format!("/proc/{}/task/{}/fdinfo/{epfd}", self.pid, self.tid);
        let info = match std::fs::read_to_string(path) {
            Ok(info) => info,
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return Some(Err(Refused));
            }
            Err(_) => return None,
        };
        for (fd, events) in info.lines().filter_map(parse_tfd) {
            if events & libc::EPOLLIN as u32 == 0 {
                continue;
            }
            if self.is_terminal(fd) {
                return Some(Ok(()));
            }
            if depth > 0 && self.is_epoll(fd) && self.epoll_reads(fd, depth - 1).is_some() {
                return Some(Ok(()));
            }
        }
        None
    }

    fn is_epoll(&self, fd: i32) -> bool {
        let path = format!("/proc/{}/task/{}/fd/{fd}", self.pid, self.tid);
        std::fs::read_link(path).is_ok_and(|l| l.as_os_str() == "anon_inode:[eventpoll]")
    }

    /// Copies `buf.len()` values from address `at` of the thread's
    /// process into `buf`.
    fn read_memory<T: Copy>(&self, at: u64, buf: &mut [T]) -> Result<(), Refused> {
        if crate::core::proc_tree::read_memory(self.tid, at, buf) {
            Ok(())
        } else {
            Err(Refused)
        }
    }
}

/// `tfd:        9 events:       19 data: ...` → (9, 0x19).
fn parse_tfd(line: &str) -> Option<(i32, u32)> {
    let mut words = line.split_whitespace();
    if words.next()? != "tfd:" {
        return None;
    }
    let fd = words.next()?.parse().ok()?;
    if words.next()? != "events:" {
        return None;
    }
    let events = u32::from_str_radix(words.next()?, 16).ok()?;
    Some((fd, events))
}

pub(super) fn program(pid: Pid) -> Option<String> {
    Some(Process::new(pid).ok()?.stat().ok()?.comm)
}

#[cfg(test)]
mod tests {
    use super::parse_tfd;

    #[test]
    fn tfd_lines_give_the_descriptor_and_its_events() {
        let line = "tfd:       20 events:       19 data:               14  pos:0 ino:3 sdev:1a";
        assert_eq!(parse_tfd(line), Some((20, 0x19)));
        assert_eq!(parse_tfd("pos:\t0"), None);
        assert_eq!(parse_tfd("tfd: x events: 1"), None);
    }
}
