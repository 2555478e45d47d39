//! Starting a program on a pseudo-terminal with `posix_spawn` (Linux, glibc).
//!
//! Why `posix_spawn`: portable-pty starts the program through
//! `std::process::Command` with a `pre_exec` closure, and a `pre_exec` forces
//! `fork()` of the whole Node process — its page tables are copied, every page
//! either process writes afterwards takes a copy-on-write fault, and the
//! calling (JS) thread is held until the closure has run in the child. glibc's
//! `posix_spawn` uses `clone(CLONE_VM | CLONE_VFORK)` instead: the child runs
//! on the parent's memory until its `execve`, so nothing is copied, and the
//! caller waits only for the file actions below and the `execve` itself.
//!
//! The child gets what portable-pty's `pre_exec` gave it:
//!
//! - a new session (`POSIX_SPAWN_SETSID`) with the pty as its controlling
//!   terminal. No `TIOCSCTTY` is needed: on Linux a session leader without a
//!   controlling terminal that opens a terminal without `O_NOCTTY` acquires it
//!   (and the terminal's foreground group becomes the leader's group). So the
//!   first file action opens the slave *by its path* as fd 0, after the
//!   `setsid`, and fds 1 and 2 are `dup2`s of it;
//! - no other descriptor: `closefrom(3)` runs after the terminal is in place,
//!   because descriptors the Node process (or a library in it) opened
//!   without `O_CLOEXEC` would otherwise leak into every program;
//! - every signal at its default disposition (`POSIX_SPAWN_SETSIGDEF` with
//!   every signal: portable-pty reset six and std `SIGPIPE`, and Node also
//!   ignores `SIGXFSZ`) and an empty signal mask (`POSIX_SPAWN_SETSIGMASK`);
//! - the working directory (`addchdir_np`), argv as given (argv\[0\] may be
//!   the name the user typed), and the environment as `std::process::Command`
//!   built it for portable-pty (see `child`).
//!
//! Nothing depends on when `posix_spawn` returns. glibc's returns once the
//! child has executed the program (the `CLONE_VFORK`), but one whose clone
//! runs as a plain `fork` returns before the child has run any file action:
//! qemu-user's does, as may a tracer or another libc. The caller then drops
//! its slave descriptor at once, and if the child had let go of its
//! inherited copy before opening its own (`closefrom` first), nothing would
//! hold the slave for a moment: the master reads `EIO` and the session ends
//! its reading while the program has yet to write. So the child opens the
//! terminal first, while it still holds the inherited copy, and closes the
//! rest only then (`__test__/spawn-early-return.test.ts` gives Node such a
//! `posix_spawn`). Such a `posix_spawn` cannot report the `execve`'s errno
//! either (it is set in a child that no longer shares our memory), so where
//! [`reports_exec_errors`] finds that, the caller does not use this module.
//!
//! `posix_spawn` reports the `execve` errno itself (`ENOENT`, `EACCES`, ...),
//! so a program that cannot start fails the call instead of exiting with 127.
//! A file the kernel cannot execute (`ENOEXEC`, a script without `#!`) is run
//! by `/bin/sh`, as `execvp` — which std used — does.
//!
//! `posix_spawn_file_actions_addchdir_np` (glibc 2.29) and
//! `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34) are looked up at run
//! time ([`Extensions::get`]) rather than linked: linked, they would stop the
//! whole addon from loading on an older glibc; looked up, an older glibc only
//! means the caller falls back to portable-pty's spawn.

use std::ffi::{CStr, CString, c_char, c_int};
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

use super::child::{BOURNE_SHELL, CProgram, Program, null_terminated};
use crate::core::proc_tree::Pid;

type AddChdirFn =
    unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, *const c_char) -> c_int;
type AddClosefromFn = unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, c_int) -> c_int;

/// The glibc file actions beyond POSIX that a pty spawn needs, when this glibc
/// has them.
pub(crate) struct Extensions {
    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
    addchdir: AddChdirFn,
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
    addclosefrom: AddClosefromFn,
}

impl Extensions {
    /// The extensions, or `None` when the running glibc lacks one of them
    /// (looked up once).
    pub(crate) fn get() -> Option<&'static Extensions> {
        static EXTENSIONS: OnceLock<Option<Extensions>> = OnceLock::new();
        EXTENSIONS
            .get_or_init(|| {
                let addchdir = lookup(c"posix_spawn_file_actions_addchdir_np")?;
                let addclosefrom = lookup(c"posix_spawn_file_actions_addclosefrom_np")?;
                // SAFETY: glibc declares both functions with exactly these
                // signatures (<spawn.h>); a symbol's address is its function.
                unsafe {
                    Some(Extensions {
                        addchdir: std::mem::transmute::<*mut libc::c_void, AddChdirFn>(addchdir),
                        addclosefrom: std::mem::transmute::<*mut libc::c_void, AddClosefromFn>(
                            addclosefrom,
                        ),
                    })
                }
            })
            .as_ref()
    }
}

/// Whether this process's `posix_spawn` reports the `execve`'s errno, as
/// glibc's does by waiting for the exec; checked once, by starting `/` (a
/// directory: `EACCES`). One that returns as soon as it has forked (qemu-user
/// runs glibc's `clone(CLONE_VM | CLONE_VFORK)` as a `fork`) cannot: it
/// returns 0 and its child exits with 127, so a program that cannot start
/// would seem to start. Where it does not, the caller starts programs with a
/// child of its own, which reports the errno through a pipe (`fork`).
pub(crate) fn reports_exec_errors() -> bool {
    static REPORTS: OnceLock<bool> = OnceLock::new();
    *REPORTS.get_or_init(|| {
        let argv = [c"/".as_ptr().cast_mut(), std::ptr::null_mut()];
        let envp = [std::ptr::null_mut::<c_char>()];
        let mut pid: libc::pid_t = 0;
        // SAFETY: a NUL-terminated path, NULL-terminated argv and envp that
        // live across the call; no file actions or attributes.
        let rc = unsafe {
            libc::posix_spawn(
                &mut pid,
                c"/".as_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                argv.as_ptr(),
                envp.as_ptr(),
            )
        };
        if rc == 0 {
            // It "started": collect the child that failed its exec.
            let mut status = 0;
            // SAFETY: waits for our own child, writing its status to a local.
            while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
                && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
            {}
        }
        rc != 0
    })
}

fn lookup(name: &CStr) -> Option<*mut libc::c_void> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads.
    let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!symbol.is_null()).then_some(symbol)
}

/// Starts `what` as a session leader whose stdin, stdout, stderr and
/// controlling terminal are the pty slave at `tty`; returns its pid.
///
/// The caller keeps its own slave descriptor open (close-on-exec) until this
/// returns and closes it afterwards: the child inherits it and holds the pty
/// through it until it has opened `tty`, even when `posix_spawn` returns
/// before the child ran its file actions. Errors carry
/// the errno of the failed `execve` (or file action), or `InvalidInput` for a
/// NUL byte, as `std::process::Command` reports them.
pub(crate) fn spawn_on_tty(ext: &Extensions, tty: &Path, what: &Program<'_>) -> io::Result<Pid> {
    let CProgram {
        program,
        argv,
        envp,
        cwd,
        sh_argv,
    } = what.to_c()?;
    let tty = CString::new(tty.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;

    let mut actions = FileActions::new()?;
    // SAFETY (all five): `actions` was initialised; glibc copies the paths.
    unsafe {
        // The terminal first, by its path: without O_NOCTTY and after the
        // setsid, this makes it the controlling terminal. Until this open the
        // child holds the slave through the descriptors it inherited (the
        // caller's, close-on-exec), so the slave is never without a holder,
        // however early `posix_spawn` returned (see the module's comment).
        check(libc::posix_spawn_file_actions_addopen(
            actions.as_mut_ptr(),
            0,
            tty.as_ptr(),
            libc::O_RDWR,
            0,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(
            actions.as_mut_ptr(),
            0,
            1,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(
            actions.as_mut_ptr(),
            0,
            2,
        ))?;
        // Then everything else goes: 0, 1 and 2 are the only descriptors
        // the program gets.
        check((ext.addclosefrom)(actions.as_mut_ptr(), 3))?;
        check((ext.addchdir)(actions.as_mut_ptr(), cwd.as_ptr()))?;
    }
    let attr = SpawnAttr::new()?;

    match spawn(&program, &actions, &attr, &argv, &envp) {
        Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => {
            // execvp's fallback: `/bin/sh <program> <args...>`. If even that
            // fails, the program's own error is the one worth reporting.
            spawn(BOURNE_SHELL, &actions, &attr, &sh_argv, &envp).map_err(|_| e)
        }
        result => result,
    }
}

fn spawn(
    program: &CStr,
    actions: &FileActions,
    attr: &SpawnAttr,
    argv: &[CString],
    envp: &[CString],
) -> io::Result<Pid> {
    let argv = null_terminated(argv);
    let envp = null_terminated(envp);
    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is valid for the call: the C strings and the
    // NULL-terminated arrays live until it returns, and `actions` and `attr`
    // were initialised.
    let rc = unsafe {
        libc::posix_spawn(
            &mut pid,
            program.as_ptr(),
            actions.as_ptr(),
            attr.as_ptr(),
            argv.as_ptr(),
            envp.as_ptr(),
        )
    };
    check(rc)?;
    Ok(pid)
}

/// A `posix_spawn*` return value: 0, or an errno.
fn check(rc: c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// An initialised `posix_spawn_file_actions_t`, destroyed on drop.
struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: init fills in the struct (glibc's holds no pointer to
        // itself, so it may move afterwards).
        check(unsafe { libc::posix_spawn_file_actions_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialised just above.
        Ok(FileActions(unsafe { raw.assume_init() }))
    }

    fn as_ptr(&self) -> *const libc::posix_spawn_file_actions_t {
        &self.0
    }

    fn as_mut_ptr(&mut self) -> *mut libc::posix_spawn_file_actions_t {
        &mut self.0
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut self.0) };
    }
}

/// Spawn attributes: new session, every signal at its default, empty mask.
struct SpawnAttr(libc::posix_spawnattr_t);

impl SpawnAttr {
    fn new() -> io::Result<SpawnAttr> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: init fills in the struct (no pointer to itself in glibc's).
        check(unsafe { libc::posix_spawnattr_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialised just above; from here on it is destroyed on drop.
        let mut attr = SpawnAttr(unsafe { raw.assume_init() });
        let flags = libc::POSIX_SPAWN_SETSID
            | (libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short;
        // SAFETY: a sigset_t is a plain bit array, so all bits set is a valid
        // set; sigemptyset fills in the other; the setters copy both into the
        // initialised attributes.
        unsafe {
            // Every bit, not sigfillset: that leaves out glibc's two internal
            // signals (32 and 33), which glibc's spawn child then sets to
            // SIG_IGN (no handler may run while it shares the parent's memory)
            // and execve keeps ignored, so every program would start with
            // them ignored. As default they are what fork + exec gave; nothing
            // sends them to the child before its exec.
            let mut all = MaybeUninit::<libc::sigset_t>::uninit();
            std::ptr::write_bytes(all.as_mut_ptr(), 0xff, 1);
            let mut none = MaybeUninit::<libc::sigset_t>::uninit();
            libc::sigemptyset(none.as_mut_ptr());
            check(libc::posix_spawnattr_setsigdefault(
                &mut attr.0,
                all.as_ptr(),
            ))?;
            check(libc::posix_spawnattr_setsigmask(&mut attr.0, none.as_ptr()))?;
            check(libc::posix_spawnattr_setflags(&mut attr.0, flags))?;
        }
        Ok(attr)
    }

    fn as_ptr(&self) -> *const libc::posix_spawnattr_t {
        &self.0
    }
}

impl Drop for SpawnAttr {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_glibc_has_the_extensions() {
        assert!(Extensions::get().is_some());
    }
}
