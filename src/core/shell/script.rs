//! What is typed into the shell: the marker prompt, the line that runs a
//! command file, the per-run variables allowed, the nonce, and the private
//! directory that holds the command files.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::PS1_KEEP;
use crate::core::error::{Error, Result};
use crate::core::session::shell_quote;

/// The prompt that prints the `A` marker with `$?` (expanded by the shell
/// each time it shows the prompt).
pub fn prompt(nonce: &str) -> String {
    format!("\x1b]133;A;$?;{nonce}\x07")
}

/// The line that runs the command file `file`: `C` marker, the file (with
/// stdin from `/dev/null`, in a subshell when `cwd` or `env` is given), `D`
/// marker with its status, and the marker prompt restored in case the command
/// changed `PS1`.
///
/// `env` names must be valid shell variable names (see [`check_env`]); `None`
/// values unset the variable.
pub fn run_line(
    file: &Path,
    nonce: &str,
    cwd: Option<&str>,
    env: &[(String, Option<String>)],
) -> String {
    let file = shell_quote(&file.to_string_lossy());
    let body = if cwd.is_none() && env.is_empty() {
        format!(". {file}")
    } else {
        let mut body = String::from("(");
        if let Some(dir) = cwd {
            body.push_str(&format!(" cd {} || exit;", shell_quote(dir)));
        }
        for (key, value) in env {
            match value {
                Some(value) => body.push_str(&format!(" export {key}={};", shell_quote(value))),
                None => body.push_str(&format!(" unset {key};")),
            }
        }
        body.push_str(&format!(" . {file}; )"));
        body
    };
    format!(
        "\\command printf '\\033]133;C;%s\\007' {nonce}; {body} </dev/null; \
         {{ \\command printf '\\033]133;D;%s;%s\\007' \"$?\" {nonce}; }} 2>/dev/null; PS1=${PS1_KEEP}\n"
    )
}

/// The probe line number `id` (see `watchdog`): it prints the probe marker
/// to the terminal itself, whatever the shell's stdout and stderr are now.
pub fn probe_line(id: u64, nonce: &str) -> String {
    format!("\\command printf '\\033]133;P;%s;%s\\007' {id} {nonce} >/dev/tty 2>/dev/null\n")
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

    pub(super) fn create(nonce: &str) -> Result<Self> {
        let path = std::env::temp_dir().join(format!("ptypilot-shell-{}", &nonce[..16]));
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

#[cfg(test)]
mod tests {
    use super::super::markers::testing::N;
    use super::*;
    use crate::core::error::ErrorCode;

    #[test]
    fn run_line_quotes_and_scopes() {
        let file = Path::new("/tmp/d/cmd-0");
        let plain = run_line(file, N, None, &[]);
        assert!(plain.contains(". /tmp/d/cmd-0 </dev/null;"));
        assert!(plain.ends_with("PS1=$__ptypilot_ps1\n"));
        assert_eq!(plain.matches('\n').count(), 1);
        let scoped = run_line(
            file,
            N,
            Some("/tmp/it's here"),
            &[("A".into(), Some("x y'z".into())), ("B".into(), None)],
        );
        assert!(scoped.contains(
            "( cd '/tmp/it'\\''s here' || exit; export A='x y'\\''z'; unset B; . /tmp/d/cmd-0; ) </dev/null"
        ));
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
