//! Starting a program on a pseudo-terminal as another user and group
//! ([`SpawnOptions::run_as`](crate::core::session::SpawnOptions::run_as)),
//! or in a sandbox ([`SpawnOptions::sandbox`](crate::core::session::SpawnOptions::sandbox)).
//!
//! Why a child of our own: `posix_spawn` cannot change the user or confine
//! the program (it runs no code of ours between its `clone` and the
//! `execve`), and portable-pty's `CommandBuilder` has no way to either. On
//! Linux the child borrows this process's memory until its `execve`
//! (`clone(CLONE_VM | CLONE_VFORK)`, as glibc's `posix_spawn` does), so
//! starting it copies nothing; a sandbox that makes a user namespace needs
//! a `fork` instead (see [`sandbox::Prepared::needs_own_memory`]), as does
//! every other system. The child does, in order:
//!
//! - every signal back to its default disposition (Node ignores `SIGPIPE`
//!   and `SIGXFSZ`, and `SIG_IGN` survives `execve`) and then an empty signal
//!   mask. All signals are blocked in the forking thread across the `fork`,
//!   so none of the parent's handlers can run in the child before that;
//! - `setsid`, then the slave opened by its path (on Linux a session leader
//!   without a controlling terminal acquires the terminal it opens;
//!   `TIOCSCTTY` makes it so elsewhere) as fds 0, 1 and 2;
//! - the sandbox, when there is one ([`sandbox::Prepared::apply_in_child`]:
//!   system calls on what the parent prepared; it closes its own Landlock
//!   descriptor, so it comes before the others are closed);
//! - every other descriptor closed (`close_range` on Linux 5.9+, else one
//!   `close` per possible descriptor), so nothing the Node process opened
//!   without `O_CLOEXEC` reaches the program;
//! - `chdir`, then `setgroups` (only when running as root: the program keeps
//!   none of root's supplementary groups), `setgid`, `setuid`;
//! - `execve`, and for a file the kernel cannot execute (`ENOEXEC`) `/bin/sh`
//!   with it, as `execvp` does.
//!
//! The parent is multi-threaded, so between `fork` and `execve` the child
//! calls only async-signal-safe functions on memory prepared before the fork
//! (no allocation); the identity changes are the system calls themselves
//! (glibc's `setuid` would signal the threads of the process it believes it
//! is, which for a child sharing memory are the parent's). When a step fails the child writes its errno to a
//! close-on-exec pipe and exits; the parent reads the pipe (end-of-file means
//! the `execve` succeeded), reaps such a child and returns the error, so a
//! program that cannot start fails the call as on the other paths.

use std::ffi::c_int;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::child::{BOURNE_SHELL, Program, null_terminated};
use crate::core::proc_tree::Pid;
use crate::core::sandbox;
use crate::core::session::RunAs;

/// Highest descriptor closed one by one where `close_range` is missing.
const CLOSE_LOOP_MAX: c_int = 65536;

/// Starts `what` as user and group `run_as` (when given) and in `sandbox`
/// (when given), a session leader whose stdin, stdout, stderr and
/// controlling terminal are the pty slave at `tty`; returns its pid. Errors
/// carry the errno of the step that failed (`EPERM` for `setuid` without the
/// right to, `ENOENT` for the program, ...) or `InvalidInput` for a NUL byte.
pub(crate) fn spawn_forked(
    tty: &Path,
    what: &Program<'_>,
    run_as: Option<RunAs>,
    sandbox: Option<&sandbox::Prepared>,
) -> io::Result<Pid> {
    let c = what.to_c()?;
    let tty = std::ffi::CString::new(tty.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let argv = null_terminated(&c.argv);
    let sh_argv = null_terminated(&c.sh_argv);
    let envp = null_terminated(&c.envp);
    let (read_end, write_end) = error_pipe()?;
    // SAFETY: geteuid has no preconditions.
    let as_root = unsafe { libc::geteuid() } == 0;
    let groups = [run_as.map_or(0, |r| r.gid) as libc::gid_t];

    let mut all = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
    let mut old = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
    // SAFETY: sigfillset initialises `all`; pthread_sigmask writes `old`.
    unsafe {
        libc::sigfillset(all.as_mut_ptr());
        libc::pthread_sigmask(libc::SIG_SETMASK, all.as_ptr(), old.as_mut_ptr());
    }
    let child = Child {
        tty: &tty,
        program: &c.program,
        argv: &argv,
        sh_argv: &sh_argv,
        envp: &envp,
        cwd: &c.cwd,
        groups: as_root.then_some(&groups[..]),
        run_as,
        sandbox,
        report: write_end.as_raw_fd(),
    };
    #[cfg(target_os = "linux")]
    let borrow = sandbox.is_none_or(|s| !s.needs_own_memory());
    #[cfg(not(target_os = "linux"))]
    let borrow = false;
    // SAFETY: every signal is blocked; the child only makes system calls on
    // memory prepared above and never returns.
    let pid = unsafe {
        if borrow {
            start_borrowing(&child)
        } else {
            start_forked(&child)
        }
    };
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, old.as_ptr(), std::ptr::null_mut()) };
    let pid = pid?;
    drop(write_end);
    match read_errno(read_end.as_raw_fd()) {
        None => Ok(pid),
        Some(errno) => {
            // The child exits right after reporting; collect it.
            let mut status = 0;
            // SAFETY: waits for our own child, writing its status to a local.
            while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
                && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
            {}
            Err(io::Error::from_raw_os_error(errno))
        }
    }
}

/// Starts `child` in a `fork` of this process.
///
/// # Safety
/// With every signal blocked.
unsafe fn start_forked(child: &Child<'_>) -> io::Result<Pid> {
    // SAFETY: fork has no preconditions; the child only makes system calls
    // (`Child::exec`) and never returns.
    match unsafe { libc::fork() } {
        0 => unsafe { child.exec() },
        pid if pid < 0 => Err(io::Error::last_os_error()),
        pid => Ok(pid),
    }
}

/// Starts `child` on this process's memory, as glibc's `posix_spawn` does:
/// `clone(CLONE_VM | CLONE_VFORK)` on a stack of its own, so nothing is
/// copied (a `fork` of the Node process copies its page tables, the most
/// of what a sandboxed start costs) and this thread waits until the child
/// executed the program or failed. The child makes raw system calls only
/// (the errno it sets is this thread's, unused until it is gone; `setuid`
/// is the system call, not glibc's, which would signal this process's
/// threads). Not for a sandbox that makes a user namespace: `unshare`
/// refuses `CLONE_NEWUSER` to a process that shares its memory.
///
/// # Safety
/// With every signal blocked.
#[cfg(target_os = "linux")]
unsafe fn start_borrowing(child: &Child<'_>) -> io::Result<Pid> {
    const STACK: usize = 256 << 10;
    const GUARD: usize = 4096;
    extern "C" fn entry(arg: *mut libc::c_void) -> c_int {
        // SAFETY: `arg` is the `Child` the parent passed, alive until the
        // child executes or exits (the parent waits: CLONE_VFORK).
        unsafe { (*(arg as *const Child<'_>)).exec() }
    }
    // SAFETY: a fresh anonymous mapping, its lowest page made a guard; the
    // stack grows down from its end; unmapped once the child no longer
    // runs on it (after its exec or exit, which CLONE_VFORK waits for).
    unsafe {
        let base = libc::mmap(
            std::ptr::null_mut(),
            STACK + GUARD,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        );
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        libc::mprotect(base, GUARD, libc::PROT_NONE);
        let top = base.cast::<u8>().add(STACK + GUARD).cast::<libc::c_void>();
        let pid = libc::clone(
            entry,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (child as *const Child<'_>).cast_mut().cast(),
        );
        let error = io::Error::last_os_error();
        libc::munmap(base, STACK + GUARD);
        if pid < 0 { Err(error) } else { Ok(pid) }
    }
}

#[cfg(not(target_os = "linux"))]
unsafe fn start_borrowing(child: &Child<'_>) -> io::Result<Pid> {
    // SAFETY: the caller's contract.
    unsafe { start_forked(child) }
}

/// A close-on-exec pipe whose write end is 3 or above (the child puts the
/// terminal on 0, 1 and 2).
fn error_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read_end, write_end) = nix::unistd::pipe().map_err(io::Error::from)?;
    for fd in [&read_end, &write_end] {
        // SAFETY: sets FD_CLOEXEC on a descriptor we own.
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    if write_end.as_raw_fd() > 2 {
        return Ok((read_end, write_end));
    }
    // SAFETY: duplicates a descriptor we own to a new one, close-on-exec.
    let moved = unsafe { libc::fcntl(write_end.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us this descriptor.
    Ok((read_end, unsafe { OwnedFd::from_raw_fd(moved) }))
}

/// The errno the child reported, or `None` when the pipe reached its end
/// without one (the `execve` succeeded).
fn read_errno(fd: RawFd) -> Option<i32> {
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reads into the rest of a local buffer.
        let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        if n > 0 {
            got += n as usize;
        } else if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        } else {
            break;
        }
    }
    (got == buf.len()).then(|| i32::from_ne_bytes(buf))
}

/// What the child needs, all of it made before the fork.
struct Child<'a> {
    tty: &'a std::ffi::CStr,
    program: &'a std::ffi::CStr,
    argv: &'a [*mut libc::c_char],
    sh_argv: &'a [*mut libc::c_char],
    envp: &'a [*mut libc::c_char],
    cwd: &'a std::ffi::CStr,
    /// The supplementary groups to set (when running as root).
    groups: Option<&'a [libc::gid_t]>,
    run_as: Option<RunAs>,
    sandbox: Option<&'a sandbox::Prepared>,
    report: RawFd,
}

impl Child<'_> {
    /// Runs in the child: sets it up and executes the program, or reports
    /// the errno of the step that failed and exits.
    ///
    /// # Safety
    /// Only in the child of a `fork`, with every signal blocked.
    unsafe fn exec(&self) -> ! {
        // SAFETY (the whole body): async-signal-safe calls only, on C strings
        // and arrays made before the fork.
        unsafe {
            #[cfg(target_os = "linux")]
            for sig in 1..=64 {
                // The system call itself: glibc's `sigaction` refuses its
                // own two signals (32 and 33), which the program must get at
                // their default too. All zeros is the kernel's `SIG_DFL`
                // with no flags and an empty mask (8 bytes of mask on
                // Linux). SIGKILL and SIGSTOP cannot be changed (EINVAL).
                let default = [0u64; 4];
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    sig,
                    default.as_ptr(),
                    std::ptr::null_mut::<u64>(),
                    8usize,
                );
            }
            #[cfg(not(target_os = "linux"))]
            for sig in 1..=31 {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &default, std::ptr::null_mut());
            }
            let mut none = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
            libc::sigemptyset(none.as_mut_ptr());
            libc::sigprocmask(libc::SIG_SETMASK, none.as_ptr(), std::ptr::null_mut());

            if libc::setsid() < 0 {
                self.fail();
            }
            let tty = libc::open(self.tty.as_ptr(), libc::O_RDWR);
            if tty < 0 {
                self.fail();
            }
            // Already the controlling terminal on Linux (0 then); needed elsewhere.
            libc::ioctl(tty, libc::TIOCSCTTY as _, 0);
            for target in 0..3 {
                if tty != target && libc::dup2(tty, target) < 0 {
                    self.fail();
                }
            }
            if tty > 2 {
                libc::close(tty);
            }
            if let Some(sandbox) = self.sandbox
                && let Err(e) = sandbox.apply_in_child()
            {
                *errno() = e;
                self.fail();
            }
            self.close_others();
            if libc::chdir(self.cwd.as_ptr()) < 0 {
                self.fail();
            }
            if let Some(run_as) = self.run_as {
                if let Some(groups) = self.groups
                    && set_groups(groups) < 0
                {
                    self.fail();
                }
                if set_gid(run_as.gid) < 0 || set_uid(run_as.uid) < 0 {
                    self.fail();
                }
            }
            libc::execve(
                self.program.as_ptr(),
                self.argv.as_ptr().cast(),
                self.envp.as_ptr().cast(),
            );
            if *errno() == libc::ENOEXEC {
                let first = *errno();
                libc::execve(
                    BOURNE_SHELL.as_ptr(),
                    self.sh_argv.as_ptr().cast(),
                    self.envp.as_ptr().cast(),
                );
                // The program's own error is the one worth reporting.
                *errno() = first;
            }
            self.fail()
        }
    }

    /// Closes every descriptor from 3 on but the report pipe.
    ///
    /// # Safety
    /// In the child, after the terminal was put on 0, 1 and 2.
    unsafe fn close_others(&self) {
        // SAFETY: close_range and close take plain integers.
        unsafe {
            let report = self.report;
            #[cfg(target_os = "linux")]
            {
                let below = report <= 3
                    || libc::syscall(libc::SYS_close_range, 3u32, (report - 1) as u32, 0u32) == 0;
                if below
                    && libc::syscall(libc::SYS_close_range, (report + 1) as u32, u32::MAX, 0u32)
                        == 0
                {
                    return;
                }
            }
            for fd in 3..CLOSE_LOOP_MAX {
                if fd != report {
                    libc::close(fd);
                }
            }
        }
    }

    /// Reports errno to the parent and exits.
    ///
    /// # Safety
    /// In the child.
    unsafe fn fail(&self) -> ! {
        // SAFETY: write and _exit are async-signal-safe; the buffer is local.
        unsafe {
            let bytes = (*errno()).to_ne_bytes();
            libc::write(self.report, bytes.as_ptr().cast(), bytes.len());
            libc::_exit(127)
        }
    }
}

/// `setgroups` for this process alone: on Linux the system call (glibc's
/// wrapper would ask every thread of the process it believes it is, which in
/// a child sharing the parent's memory are the parent's).
///
/// # Safety
/// In the child.
unsafe fn set_groups(groups: &[libc::gid_t]) -> libc::c_long {
    // SAFETY: the kernel reads `groups.len()` ids from the pointer.
    unsafe {
        #[cfg(target_os = "linux")]
        return libc::syscall(libc::SYS_setgroups, groups.len(), groups.as_ptr());
        #[cfg(not(target_os = "linux"))]
        return libc::setgroups(groups.len() as _, groups.as_ptr()) as libc::c_long;
    }
}

/// `setgid` for this process alone (see [`set_groups`]).
///
/// # Safety
/// In the child.
unsafe fn set_gid(gid: u32) -> libc::c_long {
    // SAFETY: a plain integer argument.
    unsafe {
        #[cfg(target_os = "linux")]
        return libc::syscall(libc::SYS_setgid, gid);
        #[cfg(not(target_os = "linux"))]
        return libc::setgid(gid as libc::gid_t) as libc::c_long;
    }
}

/// `setuid` for this process alone (see [`set_groups`]).
///
/// # Safety
/// In the child.
unsafe fn set_uid(uid: u32) -> libc::c_long {
    // SAFETY: a plain integer argument.
    unsafe {
        #[cfg(target_os = "linux")]
        return libc::syscall(libc::SYS_setuid, uid);
        #[cfg(not(target_os = "linux"))]
        return libc::setuid(uid as libc::uid_t) as libc::c_long;
    }
}

/// This thread's errno.
///
/// # Safety
/// The pointer is valid for this thread only.
unsafe fn errno() -> *mut c_int {
    #[cfg(target_os = "linux")]
    // SAFETY: glibc's per-thread errno location.
    unsafe {
        libc::__errno_location()
    }
    #[cfg(not(target_os = "linux"))]
    // SAFETY: the BSD libc's per-thread errno location.
    unsafe {
        libc::__error()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// Runs `sh -c script` as `run_as` on a fresh pty and returns what it
    /// printed and its exit status.
    fn run(script: &str, run_as: RunAs) -> io::Result<(String, i32)> {
        let pair = crate::core::pty::open_pair(80, 24)?;
        let argv = [
            OsString::from("sh"),
            OsString::from("-c"),
            OsString::from(script),
        ];
        let env = [("PATH".to_owned(), "/usr/bin:/bin".to_owned())];
        let program = Program {
            program: Path::new("/bin/sh"),
            argv: &argv,
            env: &env,
            cwd: Path::new("/"),
            add_shell: false,
        };
        let pid = spawn_forked(Path::new(&pair.name), &program, Some(run_as), None)?;
        drop(pair.slave);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            // SAFETY: reads into a local buffer.
            let n = unsafe { libc::read(pair.master.as_raw_fd(), buf.as_mut_ptr().cast(), 4096) };
            if n <= 0 {
                break;
            }
            out.extend_from_slice(&buf[..n as usize]);
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        Ok((String::from_utf8_lossy(&out).into_owned(), status))
    }

    fn me() -> RunAs {
        // SAFETY: getuid and getgid have no preconditions.
        unsafe {
            RunAs {
                uid: libc::getuid(),
                gid: libc::getgid(),
            }
        }
    }

    #[test]
    fn runs_on_the_terminal_with_default_signals_and_no_other_descriptors() {
        let (out, status) = run(
            "test -t 0 && test -t 1 && echo tty; ls /proc/self/fd | tr '\\n' ' '; echo; grep -E '^Sig(Ign|Blk)' /proc/self/status; ps -o tty= -p $$",
            me(),
        )
        .unwrap();
        assert_eq!(status, 0, "{out}");
        assert!(out.contains("tty\r\n"), "{out}");
        // ls's own directory descriptor is 3.
        assert!(out.contains("0 1 2 3 \r\n"), "{out}");
        assert!(out.contains("SigIgn:\t0000000000000000"), "{out}");
        assert!(out.contains("SigBlk:\t0000000000000000"), "{out}");
        assert!(out.contains("pts/"), "a controlling terminal: {out}");
    }

    #[test]
    fn changes_user_and_group_when_root() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let nobody = RunAs {
            uid: 65534,
            gid: 65534,
        };
        let (out, status) = run("id -u; id -g; id -G", nobody).unwrap();
        assert_eq!(status, 0, "{out}");
        assert_eq!(out, "65534\r\n65534\r\n65534\r\n");
    }

    #[test]
    fn a_missing_program_is_an_error() {
        let pair = crate::core::pty::open_pair(80, 24).unwrap();
        let argv = [OsString::from("nope")];
        let program = Program {
            program: Path::new("/no/such/program"),
            argv: &argv,
            env: &[],
            cwd: Path::new("/"),
            add_shell: false,
        };
        let err = spawn_forked(Path::new(&pair.name), &program, Some(me()), None).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT));
    }
}
