//! What a program started on a pseudo-terminal gets, as the C strings
//! `execve` takes: its path, argv, environment and working directory, made
//! before the child exists (by `posix_spawn` in `spawn`, or after a
//! `fork` in `fork`, where nothing may allocate).

use std::ffi::{CStr, CString, OsStr, OsString, c_char};
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The shell `execvp` runs a file with when the kernel cannot (`_PATH_BSHELL`).
pub(crate) const BOURNE_SHELL: &CStr = c"/bin/sh";

/// What to start: the resolved program, its argv and environment, and where.
pub(crate) struct Program<'a> {
    /// The executable (absolute).
    pub program: &'a Path,
    /// argv, argv\[0\] included.
    pub argv: &'a [OsString],
    /// The environment (see [`child_env`] for what the child gets).
    pub env: &'a [(String, String)],
    /// The working directory (absolute).
    pub cwd: &'a Path,
    /// Add `SHELL` when `env` has none (see [`child_env`]).
    pub add_shell: bool,
}

/// A [`Program`] as C strings.
pub(crate) struct CProgram {
    /// The executable.
    pub program: CString,
    /// argv, argv\[0\] included.
    pub argv: Vec<CString>,
    /// `NAME=value` entries.
    pub envp: Vec<CString>,
    /// The working directory.
    pub cwd: CString,
    /// argv for `execvp`'s fallback when the kernel cannot execute the file
    /// (`ENOEXEC`, a script without `#!`): `/bin/sh <program> <args...>`.
    pub sh_argv: Vec<CString>,
}

impl Program<'_> {
    /// The C strings; `InvalidInput` for a NUL byte in any of them, as
    /// `std::process::Command` reports it.
    pub(crate) fn to_c(&self) -> io::Result<CProgram> {
        let program = cstring(self.program.as_os_str())?;
        let argv = self
            .argv
            .iter()
            .map(|a| cstring(a))
            .collect::<io::Result<Vec<_>>>()?;
        let mut sh_argv = Vec::with_capacity(argv.len() + 1);
        sh_argv.push(BOURNE_SHELL.to_owned());
        sh_argv.push(program.clone());
        sh_argv.extend(argv.iter().skip(1).cloned());
        Ok(CProgram {
            program,
            argv,
            envp: child_env(self.env, self.add_shell)?,
            cwd: cstring(self.cwd.as_os_str())?,
            sh_argv,
        })
    }
}

/// The child's environment, `NAME=value`, as portable-pty and
/// `std::process::Command` built it before: sorted by name (later entries
/// win), and with `add_shell`, `SHELL` set to the login shell when the
/// environment has none (portable-pty's `CommandBuilder` always sets it).
pub(crate) fn child_env(env: &[(String, String)], add_shell: bool) -> io::Result<Vec<CString>> {
    let mut vars: std::collections::BTreeMap<&[u8], &[u8]> = env
        .iter()
        .map(|(k, v)| (k.as_bytes(), v.as_bytes()))
        .collect();
    let shell;
    if add_shell && !vars.contains_key(b"SHELL".as_slice()) {
        shell = login_shell();
        vars.insert(b"SHELL", shell.as_bytes());
    }
    vars.into_iter()
        .map(|(k, v)| {
            let mut entry = Vec::with_capacity(k.len() + v.len() + 1);
            entry.extend_from_slice(k);
            entry.push(b'=');
            entry.extend_from_slice(v);
            CString::new(entry).map_err(|_| nul_error())
        })
        .collect()
}

/// The user's shell from the password database if it is executable, else
/// `/bin/sh` (what portable-pty's `CommandBuilder` puts in `SHELL`).
fn login_shell() -> OsString {
    let mut buf = vec![0 as c_char; 1024];
    loop {
        let mut pwd = MaybeUninit::<libc::passwd>::uninit();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: getpwuid_r writes into `pwd` and `buf`, both ours and sized
        // as passed; on success `found` points at `pwd`.
        let rc = unsafe {
            libc::getpwuid_r(
                libc::getuid(),
                pwd.as_mut_ptr(),
                buf.as_mut_ptr(),
                buf.len(),
                &mut found,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 || found.is_null() {
            break;
        }
        // SAFETY: `found` is `pwd`, filled in; pw_shell points into `buf`.
        let shell = unsafe { CStr::from_ptr((*found).pw_shell) };
        if let Ok(shell) = shell.to_str()
            && nix::unistd::access(shell, nix::unistd::AccessFlags::X_OK).is_ok()
        {
            return OsString::from(shell);
        }
        break;
    }
    OsString::from("/bin/sh")
}

fn cstring(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| nul_error())
}

/// The error `std::process::Command` gives for a NUL byte in what it passes on.
fn nul_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "nul byte found in provided data",
    )
}

/// The pointers of `strings` followed by a NULL, as `execve` takes them
/// (valid while `strings` lives).
pub(crate) fn null_terminated(strings: &[CString]) -> Vec<*mut c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_is_sorted_later_entries_win_and_shell_defaults() {
        let env = [
            ("ZZ".to_owned(), "1".to_owned()),
            ("AA".to_owned(), "2".to_owned()),
            ("ZZ".to_owned(), "3".to_owned()),
        ];
        let got: Vec<String> = child_env(&env, true)
            .unwrap()
            .into_iter()
            .map(|c| c.into_string().unwrap())
            .collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], "AA=2");
        assert!(got[1].starts_with("SHELL=/"), "{got:?}");
        assert_eq!(got[2], "ZZ=3");
        let with_shell = [("SHELL".to_owned(), "/no/such/shell".to_owned())];
        let got = child_env(&with_shell, true).unwrap();
        assert_eq!(got, [c"SHELL=/no/such/shell".to_owned()]);
    }

    #[test]
    fn exact_env_adds_nothing() {
        let env = [("A".to_owned(), "1".to_owned())];
        assert_eq!(child_env(&env, false).unwrap(), [c"A=1".to_owned()]);
    }

    #[test]
    fn nul_in_env_is_invalid_input() {
        let err = child_env(&[("A".to_owned(), "x\0y".to_owned())], true).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn sh_fallback_runs_the_program_as_a_script() {
        let argv = [OsString::from("name"), OsString::from("arg")];
        let c = Program {
            program: Path::new("/x/script"),
            argv: &argv,
            env: &[],
            cwd: Path::new("/"),
            add_shell: false,
        }
        .to_c()
        .unwrap();
        assert_eq!(
            c.sh_argv,
            [
                c"/bin/sh".to_owned(),
                c"/x/script".to_owned(),
                c"arg".to_owned()
            ]
        );
    }
}
