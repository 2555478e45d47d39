//! Whether the terminal's foreground job is blocked reading the terminal:
//! one of its processes sleeps in a read of the terminal, or in a
//! `select`/`poll`/`epoll` wait whose set holds the terminal.
//!
//! [`foreground_reader`] answers for a job (the foreground process group of
//! a session's terminal) from the kernel's process table:
//!
//! - **Linux**: `/proc`. The job's members are found by walking the
//!   session's process tree (`/proc/PID/task/TID/children`) and keeping the
//!   processes of the foreground group (`/proc/PID/stat`). For each thread
//!   that sleeps (`task/TID/stat` state `S`), `task/TID/syscall` names the
//!   call it sleeps in and its arguments:
//!   - `read`/`readv` of a descriptor;
//!   - `select`/`pselect6`: the read set, read from the process's memory
//!     (`process_vm_readv`; the programs are the session's own descendants,
//!     which the kernel lets their ancestor read);
//!   - `poll`/`ppoll`: the `pollfd` array, from the process's memory;
//!   - `epoll_wait`/`epoll_pwait`/`epoll_pwait2`: the `tfd:` lines of the
//!     epoll descriptor's `/proc/PID/fdinfo` entry (one level of nested
//!     epoll descriptors is followed).
//!
//!   A descriptor is the terminal when `/proc/PID/task/TID/fd/N` is a
//!   character device with the terminal's device number (`st_rdev`), or
//!   `/dev/tty`'s (major 5, minor 0), through which a program reads its
//!   controlling terminal (`getpass`, `less`) — never by path.
//!   `/proc/PID/wchan` is not used: it names only the kernel function a
//!   thread sleeps in, and a socket read sleeps in the same `wait_woken` as
//!   a terminal read.
//!
//!   Where the kernel refuses (a setuid program such as `sudo` or `passwd`,
//!   which is not dumpable; a hardened `ptrace` policy; `/proc` not
//!   mounted) the answer is [`Reading::Unknown`], and the caller falls back
//!   to the terminal's modes, the foreground group and a quiet timer.
//!   The syscall numbers are the native ones of x86_64 and aarch64; a
//!   32-bit program on a 64-bit kernel is not recognised (its calls have
//!   other numbers) and reads as not blocked on the terminal.
//! - **macOS**: there is no per-thread syscall table to read without
//!   privileges, so the answer is always [`Reading::Unknown`] (the
//!   foreground group's leader and its name from `proc_name`); callers use
//!   the quiet fallback. This body is checked by reading, not by a build on
//!   macOS.
use super::proc_tree::Pid;

/// Which call a reader sleeps in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `read`/`readv` of the terminal.
    Read,
    /// `select`/`pselect6` with the terminal in the read set.
    Select,
    /// `poll`/`ppoll` with the terminal in the set, for input.
    Poll,
    /// An `epoll` wait whose interest list holds the terminal, for input.
    Epoll,
}

/// A process of the foreground job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its process id.
    pub pid: Pid,
    /// Its name (`/proc/PID/comm` on Linux, `proc_name` on macOS).
    pub program: String,
}

/// What the kernel says about the foreground job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// A thread of `member` sleeps reading the terminal, in `call`.
    Blocked {
        /// The process.
        member: Member,
        /// The call it sleeps in.
        call: Call,
    },
    /// Every thread of the job could be inspected; none reads the terminal.
    NotBlocked {
        /// The group's leader (or the first member found), if it exists.
        member: Option<Member>,
    },
    /// The kernel would not say for some thread of the job.
    Unknown {
        /// The group's leader (or the first member found), if it exists.
        member: Option<Member>,
        /// Some thread of the job is running (state `R`) right now: it is
        /// at work, not waiting.
        running: bool,
    },
}

/// Whether the job `group` in the session led by `root` is blocked reading
/// the terminal whose device number is `tty` (see the module docs for where
/// each fact comes from and what happens when the kernel refuses).
pub fn foreground_reader(root: Pid, group: Pid, tty: u64) -> Reading {
    imp::foreground_reader(root, group, tty)
}

/// The name of process `pid` (`comm` on Linux, `proc_name` on macOS).
pub fn program(pid: Pid) -> Option<String> {
    imp::program(pid)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::HashSet;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    use procfs::ProcError;
    use procfs::process::{Process, Syscall};

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
            match task.syscall() {
                Ok(Syscall::Blocked {
                    syscall_number,
                    argument_registers: args,
                    ..
                }) => {
                    let here = Thread {
                        pid: process.pid,
                        tid: task.tid,
                        tty,
                    };
                    match here.reads_terminal(syscall_number, args) {
                        Some(Ok(call)) => return Some(call),
                        Some(Err(Refused)) => found.refused = true,
                        None => {}
                    }
                }
                Err(ProcError::NotFound(_)) => {}
                Ok(_) => {}
                Err(_) => found.refused = true,
            }
        }
        None
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
        /// `Some(Ok(call))` when the call `nr` with `args` waits for input
        /// from the terminal; `None` when it does not.
        fn reads_terminal(&self, nr: i64, args: [u64; 6]) -> Option<Result<Call, Refused>> {
            let nr = nr as libc::c_long;
            let fd = |a: u64| i32::try_from(a).ok();
            if nr == libc::SYS_read || nr == libc::SYS_readv {
                return self.is_terminal(fd(args[0])?).then_some(Ok(Call::Read));
            }
            if is_select(nr) {
                return self
                    .select_reads(args[0], args[1])
                    .map(|r| r.map(|()| Call::Select));
            }
            if is_poll(nr) {
                return self
                    .poll_reads(args[0], args[1])
                    .map(|r| r.map(|()| Call::Poll));
            }
            if is_epoll(nr) {
                return self
                    .epoll_reads(fd(args[0])?, 1)
                    .map(|r| r.map(|()| Call::Epoll));
            }
            None
        }

        /// `/proc/PID/task/TID/fd/N` is the terminal (by device number).
        fn is_terminal(&self, fd: i32) -> bool {
            let path = format!("/proc/{}/task/{}/fd/{fd}", self.pid, self.tid);
            std::fs::metadata(path).is_ok_and(|m| {
                m.file_type().is_char_device()
                    && (m.rdev() == self.tty || m.rdev() == tty::controlling_tty_device())
            })
        }

        /// The read set at `set` (`nfds` bits) holds the terminal.
        fn select_reads(&self, nfds: u64, set: u64) -> Option<Result<(), Refused>> {
            if set == 0 || nfds == 0 {
                return None;
            }
            let bits = libc::c_ulong::BITS as u64;
            let words = nfds.min(MAX_SELECT_FDS).div_ceil(bits) as usize;
            let mut buf: Vec<libc::c_ulong> = vec![0; words];
            if let Err(refused) = self.read_memory(set, &mut buf) {
                return Some(Err(refused));
            }
            let nfds = nfds.min(MAX_SELECT_FDS);
            let found = (0..nfds).any(|fd| {
                let word = buf[(fd / bits) as usize];
                word & (1 << (fd % bits)) != 0 && self.is_terminal(fd as i32)
            });
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
        fn read_memory<T>(&self, at: u64, buf: &mut [T]) -> Result<(), Refused> {
            let len = std::mem::size_of_val(buf);
            let local = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: len,
            };
            let remote = libc::iovec {
                iov_base: at as *mut libc::c_void,
                iov_len: len,
            };
            // SAFETY: `local` covers exactly `buf`, which is writable; the
            // remote range is only read by the kernel, in the other process.
            let n = unsafe { libc::process_vm_readv(self.tid, &local, 1, &remote, 1, 0) };
            if n == len as isize {
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

    fn is_select(nr: libc::c_long) -> bool {
        #[cfg(target_arch = "x86_64")]
        if nr == libc::SYS_select {
            return true;
        }
        nr == libc::SYS_pselect6
    }

    fn is_poll(nr: libc::c_long) -> bool {
        #[cfg(target_arch = "x86_64")]
        if nr == libc::SYS_poll {
            return true;
        }
        nr == libc::SYS_ppoll
    }

    fn is_epoll(nr: libc::c_long) -> bool {
        #[cfg(target_arch = "x86_64")]
        if nr == libc::SYS_epoll_wait {
            return true;
        }
        nr == libc::SYS_epoll_pwait || nr == libc::SYS_epoll_pwait2
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
}

#[cfg(target_os = "macos")]
mod imp {
    use super::{Member, Reading};
    use crate::core::proc_tree::Pid;

    /// macOS shows no thread's syscall to an unprivileged process: the
    /// answer is always unknown, with the group's leader for the caller's
    /// report.
    pub(super) fn foreground_reader(_root: Pid, group: Pid, _tty: u64) -> Reading {
        Reading::Unknown {
            member: program(group).map(|program| Member {
                pid: group,
                program,
            }),
            running: false,
        }
    }

    /// `proc_name` (libproc): the process's name, or `None` when it is gone
    /// or the call is refused.
    pub(super) fn program(pid: Pid) -> Option<String> {
        let mut buf = [0u8; 256];
        // SAFETY: `buf` is writable for its length; proc_name writes at
        // most that many bytes and returns how many.
        let n = unsafe { libc::proc_name(pid, buf.as_mut_ptr().cast(), buf.len() as u32) };
        (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod imp {
    use super::Reading;
    use crate::core::proc_tree::Pid;

    pub(super) fn foreground_reader(_root: Pid, _group: Pid, _tty: u64) -> Reading {
        Reading::Unknown {
            member: None,
            running: false,
        }
    }

    pub(super) fn program(_pid: Pid) -> Option<String> {
        None
    }
}
