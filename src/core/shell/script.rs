//! What is typed into the shell: the marker prompt, the line that runs a
//! command file, the per-run variables allowed, the nonce, and the private
//! directory that holds the command files.

use std::fs;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::PS1_KEEP;
use super::kind::ShellKind;
use crate::core::error::{Error, Result};
use crate::core::session::shell_quote;

/// The prompt that prints the `A` marker with `$?` and the probe variable
/// (both expanded by the shell each time it shows the prompt).
pub fn prompt(nonce: &str) -> String {
    format!("\x1b]133;A;$?;{nonce};${{{PROBE_VAR}-}}\x07")
}

/// The variable a probe line sets to `<id>;<status>`, shown by the prompt.
pub(super) const PROBE_VAR: &str = "__ptypilot_p";

/// The line that sets the marker prompt in a new shell (written to its
/// control FIFO), without the control characters in the line or the nonce
/// in the environment (which other processes of the user can read in
/// `/proc/<pid>/environ`): `printf` makes them.
pub fn prompt_line(nonce: &str, kind: ShellKind) -> String {
    let builtin = builtin_word(kind);
    format!(
        "{PS1_KEEP}=$({builtin} printf '\\033]133;A;$?;%s;${{{PROBE_VAR}-}}\\007' {nonce}); \
         PS1=${PS1_KEEP}; PS2="
    )
}

/// Probe line number `id` (for the control FIFO): it sets the probe
/// variable to `<id>;$?` (the next prompt shows it, whatever `printf` has
/// become) and prints the probe marker to the terminal itself, whatever
/// the shell's stdout and stderr are now; it restores the marker prompt.
/// Its traces (`set -x`) go to `/dev/null`. (No subshell: a stop in
/// progress interrupts children of the shell, see `stop`.)
///
/// A prompt with the probe's number and no probe marker before it means
/// `printf` no longer prints markers (a command redefined `command`,
/// `builtin` or `printf`): the shell is replaced.
pub fn probe_line(id: u64, nonce: &str, kind: ShellKind) -> String {
    let b = builtin_word(kind);
    format!(
        "{{ {PROBE_VAR}=\"{id};$?\"; {b} printf '\\033]133;P;%s;%s\\007' \"${PROBE_VAR}\" {nonce} >/dev/tty; \
         PS1=${PS1_KEEP}; }} 2>/dev/null\n"
    )
}

/// The word that runs a builtin whatever functions or aliases of its name
/// exist: `\\command` (POSIX), or `\\builtin` in zsh, where `command`
/// runs an external program (`command read` would read in a child).
fn builtin_word(kind: ShellKind) -> &'static str {
    match kind {
        ShellKind::Zsh => "\\builtin",
        _ => "\\command",
    }
}

/// The file in the command directory where bash keeps the command's
/// `DEBUG` trap while ptypilot's own commands run (see [`file_prefix`]).
pub(super) const TRAP_FILE: &str = "trap";

/// What the file of each command starts with, on its first line (so line
/// numbers in the shell's messages stay those of the command). `dir` is
/// the command directory.
///
/// - POSIX shells: it turns `set -x` back on when the command found it on
///   (the run line turned it off so that ptypilot's own commands are not
///   traced); bash also sets the command's `DEBUG` trap again (the run
///   line took it off, so that it does not run for ptypilot's commands
///   between the start marker and the command);
/// - fish: nothing (its run line prints the start marker).
///
/// Its output (`set -x` traces nothing in it) goes to `/dev/null`. `set -v`
/// echoes it with the first line; the tracker removes it there.
pub fn file_prefix(kind: ShellKind, dir: &Path) -> String {
    let xtrace = "case ${__ptypilot_x-} in *x*) \\set -x;; esac;";
    match kind {
        ShellKind::Fish => String::new(),
        ShellKind::Bash => {
            let trap = shell_quote(&dir.join(TRAP_FILE).to_string_lossy());
            format!(
                "{{ {xtrace} \\builtin read -r -d '' __ptypilot_t <{trap} || \\builtin :; \
                 \\builtin eval \"${{__ptypilot_t-}}\"; }} 2>/dev/null; "
            )
        }
        ShellKind::Zsh | ShellKind::Posix => format!("{{ {xtrace} }} 2>/dev/null; "),
    }
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stdin {
    /// `/dev/null`: a command that reads input gets end-of-file at once.
    #[default]
    Null,
    /// The terminal: the command reads what is written to the shell.
    Terminal,
}

/// How to run one command file: what [`run_line`] needs.
#[derive(Debug, Clone, Copy)]
pub struct RunLine<'a> {
    /// The command file.
    pub file: &'a Path,
    /// The shell's marker nonce.
    pub nonce: &'a str,
    /// Run in this directory (in a subshell; fish: in a block, and back).
    pub cwd: Option<&'a str>,
    /// Variables for this command (in a subshell; fish: block-local);
    /// `None` unsets.
    pub env: &'a [(String, Option<String>)],
    /// The shell's dialect.
    pub kind: ShellKind,
    /// The command's standard input.
    pub stdin: Stdin,
    /// The pipe the secret comes through (a FIFO in the command directory).
    pub end_pipe: &'a Path,
    /// The terminal's device path: the command's stdin for
    /// [`Stdin::Terminal`] (`/dev/tty` would make `tty` print `/dev/tty`).
    pub tty: &'a Path,
    /// The command directory.
    pub dir: &'a Path,
}

/// The line that runs a command file. For bash, zsh, dash and other POSIX
/// shells (written to the shell's control FIFO):
///
/// 1. `set -x` is turned off (silently, its state kept for
///    [`file_prefix`]), bash's `DEBUG` trap is kept in the command
///    directory and taken off, and the `C` marker printed; dash first
///    reports finished background jobs to `/dev/null`, so that their
///    notices do not land in the command's output;
/// 2. the file runs (`.`, with stdin from `/dev/null` or, for
///    [`Stdin::Terminal`], the terminal; in a subshell when `cwd` or `env`
///    is given);
/// 3. in a subshell — where neither a `DEBUG` trap (bash runs it before
///    every simple command, and the command may have set one) nor an `ERR`
///    trap runs, and whose own output goes to `/dev/null` — its status is
///    kept, the `D` marker printed, one line read from the end pipe (the
///    secret ptypilot writes when it sees `D`) and the `E` marker printed
///    with the status and that secret: the end of the command, which the
///    command cannot fake, since the secret did not exist while it ran;
/// 4. the marker prompt is restored in case the command changed `PS1`.
///
/// Every command word is quoted (`\\.`, `\\command`), so aliases cannot
/// take them over. The markers go to `/dev/tty`, so a command that
/// redirected the shell's output (`exec >/dev/null 2>&1`) does not hide
/// them. `env` names must be valid shell variable names (see
/// [`check_env`]).
///
/// For fish (typed into the terminal at its prompt; see `kind`), the line
/// sets the terminal's modes, prints the start marker and sources the file
/// (in a block with the per-run directory and variables); its
/// `fish_postexec` handler prints the end markers.
pub fn run_line(run: &RunLine) -> String {
    if run.kind == ShellKind::Fish {
        return fish_run_line(run);
    }
    let RunLine {
        file,
        nonce,
        cwd,
        env,
        kind,
        stdin,
        end_pipe,
        tty,
        dir,
    } = *run;
    let end_pipe = shell_quote(&end_pipe.to_string_lossy());
    let file = shell_quote(&file.to_string_lossy());
    let body = if cwd.is_none() && env.is_empty() {
        format!("\\. {file}")
    } else {
        let mut body = String::from("(");
        if let Some(dir) = cwd {
            body.push_str(&format!(" \\cd {} || \\exit;", shell_quote(dir)));
        }
        for (key, value) in env {
            match value {
                Some(value) => body.push_str(&format!(" \\export {key}={};", shell_quote(value))),
                None => body.push_str(&format!(" \\unset {key};")),
            }
        }
        body.push_str(&format!(" \\. {file}; )"));
        body
    };
    let jobs = match kind {
        ShellKind::Posix => "\\jobs >/dev/null 2>&1; ",
        _ => "",
    };
    let redirect = match stdin {
        Stdin::Null => " </dev/null".to_owned(),
        Stdin::Terminal => format!(" <{}", shell_quote(&tty.to_string_lossy())),
    };
    let trap = match kind {
        ShellKind::Bash => format!(
            " \\builtin trap -p DEBUG >|{}; \\builtin trap - DEBUG;",
            shell_quote(&dir.join(TRAP_FILE).to_string_lossy())
        ),
        _ => String::new(),
    };
    let b = builtin_word(kind);
    format!(
        "{jobs}{{ __ptypilot_x=$-; \\set +x;{trap} {b} printf '\\033]133;C;%s\\007' {nonce} >/dev/tty; }} 2>/dev/null; \
         {body}{redirect}; \
         ( __ptypilot_st=$?; {b} printf '\\033]133;D;%s\\007' {nonce} >/dev/tty; \
         {b} read -r __ptypilot_s <{end_pipe}; \
         {b} printf '\\033]133;E;%s;%s;%s\\007' \"$__ptypilot_st\" \"$__ptypilot_s\" {nonce} >/dev/tty ) >/dev/null 2>&1; \
         PS1=${PS1_KEEP}\n"
    )
}

/// The fish run line (see [`run_line`]). A per-run directory is left again
/// by the `fish_postexec` handler (which runs also when the line was
/// interrupted); per-run variables are local to the block.
fn fish_run_line(run: &RunLine) -> String {
    let file = fish_quote(&run.file.to_string_lossy());
    let redirect = match run.stdin {
        Stdin::Null => " </dev/null".to_owned(),
        Stdin::Terminal => format!(" <{}", fish_quote(&run.tty.to_string_lossy())),
    };
    // fish gives each command the modes the last one left (it mends only
    // canonical input, echo and output processing, and an interrupt that
    // came before a job started can leave its own prompt's modes there):
    // the modes fish started with are set again first, by a job of the line
    // itself, so that fish keeps them for the command (it does not for jobs
    // of its event handlers). Then the start marker: a stop, which waits
    // for it, never meets that job of ptypilot's.
    let start = format!(
        "command stty $__ptypilot_modes </dev/tty >/dev/null 2>&1; \
         builtin printf '\\e]133;C;%s\\a' {} >/dev/tty;",
        run.nonce
    );
    if run.cwd.is_none() && run.env.is_empty() {
        return format!("{start} builtin source {file}{redirect}\r");
    }
    let mut line = format!("{start} begin;");
    for (key, value) in run.env {
        match value {
            Some(value) => line.push_str(&format!(" set -lx {key} {};", fish_quote(value))),
            // A local without a value, not exported: the command sees no
            // value (fish cannot hide a global otherwise).
            None => line.push_str(&format!(" set -lu {key};")),
        }
    }
    if let Some(dir) = run.cwd {
        line.push_str(&format!(
            " set -g __ptypilot_cwd $PWD; builtin cd {} &&",
            fish_quote(dir)
        ));
    }
    line.push_str(&format!(" builtin source {file}{redirect}; end\r"));
    line
}

/// `text` as one fish word: in single quotes, `\\` and `'` escaped.
pub(super) fn fish_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// Checks per-run variables: names must be shell variable names
/// (`[A-Za-z_][A-Za-z0-9_]*`) and values must not contain NUL.
pub fn check_env(env: &[(String, Option<String>)], what: &str) -> Result<()> {
    for (key, value) in env {
        let mut chars = key.chars();
        let valid = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(Error::invalid_arg(format!(
                "{what}: {key:?} is not a shell variable name (letters, digits and _, not starting with a digit)"
            )));
        }
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(Error::invalid_arg(format!(
                "{what}.{key} must not contain NUL characters"
            )));
        }
    }
    Ok(())
}

/// A fresh random nonce: 32 hex digits.
pub fn new_nonce() -> String {
    let mut bytes = [0u8; 16];
    let from_os = fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if from_os.is_err() {
        // Randomly keyed hashes of the time: unpredictable enough for a
        // marker that only has to be impossible to print by accident.
        use std::hash::{BuildHasher, Hasher};
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(now);
            h.write_u32(std::process::id());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The private directory that holds the command files of one shell; removed
/// when dropped.
#[derive(Debug)]
pub(super) struct CommandDir {
    pub(super) path: PathBuf,
}

impl CommandDir {
    /// Removes the directory and the command files in it (also done on drop).
    pub(super) fn remove(&self) {
        let _ = fs::remove_dir_all(&self.path);
    }

    pub(super) fn create() -> Result<Self> {
        // Its own random name: the path shows in `$BASH_SOURCE`, `$0`
        // (zsh) and error messages, so it must not reveal the nonce.
        let path = std::env::temp_dir().join(format!("ptypilot-shell-{}", &new_nonce()[..16]));
        // 0700 and `create` (not "create or reuse"): nobody else can read the
        // commands or plant a file in their place.
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| Error::io(&format!("create {}", path.display()), &e))?;
        Ok(CommandDir { path })
    }

    pub(super) fn write(&self, n: u64, command: &str) -> Result<PathBuf> {
        let mut text = command.to_owned();
        // A here-doc delimiter on the last line needs its newline.
        if !text.ends_with('\n') {
            text.push('\n');
        }
        self.write_file(&format!("cmd-{n}"), &text)
    }

    /// Makes the FIFO `name` (mode 0600) in the directory and opens it for
    /// reading and writing, so the shell's open never waits and what is
    /// written stays until the shell reads it: the end pipe (`end`, the
    /// secrets) and the control FIFO (`ctl`, the shell's command lines).
    pub(super) fn fifo(&self, name: &str) -> Result<(PathBuf, OwnedFd)> {
        let path = self.path.join(name);
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| Error::invalid_arg("the temporary directory path contains NUL"))?;
        // SAFETY: a NUL-terminated path; plain mkfifo and open calls whose
        // descriptor is owned right away.
        let fd = unsafe {
            if libc::mkfifo(c_path.as_ptr(), 0o600) != 0 {
                return Err(Error::io(
                    &format!("mkfifo {}", path.display()),
                    &std::io::Error::last_os_error(),
                ));
            }
            libc::open(
                c_path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(Error::io(
                &format!("open {}", path.display()),
                &std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        Ok((path, unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Writes `text` to a new private file `name` in the directory.
    pub(super) fn write_file(&self, name: &str, text: &str) -> Result<PathBuf> {
        let path = self.path.join(name);
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io(&format!("create {}", path.display()), &e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| Error::io(&format!("write {}", path.display()), &e))?;
        Ok(path)
    }
}

impl Drop for CommandDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// Sends `secret` through the end pipe `fd` (non-blocking; a line fits in
/// the pipe).
pub(super) fn send_secret(fd: &OwnedFd, secret: u128) {
    write_fifo(fd, format!("{secret:032x}\n").as_bytes());
}

/// Writes `data` to a FIFO we hold open for reading and writing (so there
/// is always a reader and the write never fails for want of one). The
/// descriptor is non-blocking; a full pipe (64 KiB the shell has not read:
/// it does not read lines any more) is waited for a moment, then the rest
/// is dropped — the watchdog replaces such a shell.
pub(super) fn write_fifo(fd: &OwnedFd, data: &[u8]) {
    use std::os::fd::AsRawFd;
    let mut done = 0;
    let mut waits = 0;
    while done < data.len() {
        // SAFETY: writes from a buffer valid for its length to a descriptor
        // the caller owns.
        let n = unsafe {
            libc::write(
                fd.as_raw_fd(),
                data[done..].as_ptr().cast(),
                data.len() - done,
            )
        };
        if n > 0 {
            done += n as usize;
            continue;
        }
        let errno = std::io::Error::last_os_error().raw_os_error();
        if n < 0 && errno == Some(libc::EINTR) {
            continue;
        }
        if n < 0 && errno == Some(libc::EAGAIN) && waits < 100 {
            waits += 1;
            std::thread::sleep(std::time::Duration::from_millis(1));
            continue;
        }
        return;
    }
}

/// Empties the end pipe `fd`: secrets sent for `D` markers a command printed
/// and the shell never read. Done before a run line is written, while the
/// shell reads no pipe.
pub(super) fn drain_end_pipe(fd: &OwnedFd) {
    use std::os::fd::AsRawFd;
    let mut buf = [0u8; 512];
    // SAFETY: reads into a buffer valid for its length from a non-blocking
    // descriptor the caller owns.
    while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
}

#[cfg(test)]
mod tests {
    use super::super::markers::testing::N;
    use super::*;
    use crate::core::error::ErrorCode;

    fn line(
        cwd: Option<&str>,
        env: &[(String, Option<String>)],
        kind: ShellKind,
        stdin: Stdin,
    ) -> String {
        run_line(&RunLine {
            file: Path::new("/tmp/d/cmd-0"),
            nonce: N,
            cwd,
            env,
            kind,
            stdin,
            end_pipe: Path::new("/tmp/d/end"),
            tty: Path::new("/dev/pts/7"),
            dir: Path::new("/tmp/d"),
        })
    }

    #[test]
    fn run_line_quotes_and_scopes() {
        let plain = line(None, &[], ShellKind::Bash, Stdin::Null);
        assert!(plain.contains("; \\. /tmp/d/cmd-0 </dev/null;"), "{plain}");
        assert!(plain.ends_with("PS1=$__ptypilot_ps1\n"));
        assert_eq!(plain.matches('\n').count(), 1);
        assert!(!plain.contains("jobs"));
        assert!(!plain.contains("stty"));
        let scoped = line(
            Some("/tmp/it's here"),
            &[("A".into(), Some("x y'z".into())), ("B".into(), None)],
            ShellKind::Bash,
            Stdin::Null,
        );
        assert!(scoped.contains(
            "( \\cd '/tmp/it'\\''s here' || \\exit; \\export A='x y'\\''z'; \\unset B; \\. /tmp/d/cmd-0; ) </dev/null"
        ), "{scoped}");
    }

    #[test]
    fn run_line_per_dialect_and_stdin() {
        let dash = line(None, &[], ShellKind::Posix, Stdin::Null);
        assert!(dash.starts_with("\\jobs >/dev/null 2>&1; "), "{dash}");
        let terminal = line(None, &[], ShellKind::Zsh, Stdin::Terminal);
        assert!(
            terminal.contains("\\. /tmp/d/cmd-0 </dev/pts/7; "),
            "{terminal}"
        );
        assert!(!terminal.contains("</dev/null"), "{terminal}");
        assert!(!terminal.contains("trap"), "{terminal}");
        let fish = line(None, &[], ShellKind::Fish, Stdin::Null);
        let start = format!(
            "command stty $__ptypilot_modes </dev/tty >/dev/null 2>&1; \
             builtin printf '\\e]133;C;%s\\a' {N} >/dev/tty;"
        );
        assert_eq!(
            fish,
            format!("{start} builtin source '/tmp/d/cmd-0' </dev/null\r")
        );
        let fish = line(
            Some("/tmp/it's"),
            &[("A".into(), Some("v".into())), ("B".into(), None)],
            ShellKind::Fish,
            Stdin::Terminal,
        );
        assert_eq!(
            fish,
            format!(
                "{start} begin; set -lx A 'v'; set -lu B; set -g __ptypilot_cwd $PWD; builtin cd '/tmp/it\\'s' && \
                 builtin source '/tmp/d/cmd-0' <'/dev/pts/7'; end\r"
            )
        );
    }

    #[test]
    fn bash_keeps_the_debug_trap_off_between_the_markers_and_the_command() {
        let l = line(None, &[], ShellKind::Bash, Stdin::Null);
        let at = |what: &str| l.find(what).unwrap_or_else(|| panic!("{what} in {l}"));
        assert!(at("trap -p DEBUG >|/tmp/d/trap") < at("trap - DEBUG"));
        assert!(at("trap - DEBUG") < at("133;C;"));
        // The end runs in a subshell, where the command's DEBUG trap does not.
        assert!(at("( __ptypilot_st=$?") > at("\\. /tmp"));
        assert!(l.contains("133;E;%s;%s;%s\\007' \"$__ptypilot_st\" \"$__ptypilot_s\" "));
        assert!(l.contains(" >/dev/tty ) >/dev/null 2>&1; PS1="), "{l}");
        let prefix = file_prefix(ShellKind::Bash, Path::new("/tmp/d"));
        let at = |what: &str| {
            prefix
                .find(what)
                .unwrap_or_else(|| panic!("{what} in {prefix}"))
        };
        assert!(at("\\set -x") < at("</tmp/d/trap"));
        assert!(
            prefix.ends_with("\\builtin eval \"${__ptypilot_t-}\"; } 2>/dev/null; "),
            "{prefix}"
        );
        assert!(!file_prefix(ShellKind::Posix, Path::new("/tmp/d")).contains("trap"));
        assert_eq!(file_prefix(ShellKind::Fish, Path::new("/tmp/d")), "");
    }

    #[test]
    fn run_line_keeps_secrets_out_of_the_command_and_marks_in_order() {
        let l = line(None, &[], ShellKind::Bash, Stdin::Null);
        let at = |what: &str| l.find(what).unwrap_or_else(|| panic!("{what} in {l}"));
        assert!(at("133;C;") < at("\\. /tmp"));
        assert!(at("\\. /tmp") < at("__ptypilot_st=$?"));
        assert!(at("__ptypilot_st=$?") < at("133;D;"));
        assert!(at("133;D;") < at("read -r __ptypilot_s </tmp/d/end"));
        assert!(at("read -r __ptypilot_s") < at("133;E;"));
        // Aliases cannot take over a command word: each is quoted.
        for word in ["command ", "set ", ". /tmp"] {
            for (i, _) in l.match_indices(word) {
                assert!(
                    l[..i].ends_with('\\') || l[..i].ends_with("\\un"),
                    "unquoted {word:?} at {i} in {l}"
                );
            }
        }
    }

    #[test]
    fn env_names_are_checked() {
        assert!(check_env(&[("GOOD_1".into(), Some("v".into()))], "options.env").is_ok());
        for bad in ["1X", "A-B", "", "A B", "A=B"] {
            let err = check_env(&[(bad.into(), Some("v".into()))], "options.env").unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArg);
            assert!(err.message.contains("options.env"), "{}", err.message);
        }
    }

    #[test]
    fn nonces_differ() {
        let (x, y) = (new_nonce(), new_nonce());
        assert_eq!(x.len(), 32);
        assert_ne!(x, y);
    }
}
