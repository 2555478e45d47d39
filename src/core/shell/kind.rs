//! The shell's dialect: how to start bash, zsh or another POSIX `sh`
//! interactive without rc files or line editing, the lines typed into a new
//! shell, and the shells that cannot run the markers at all.

use std::fs;
use std::path::Path;

use super::script::prompt_line;
use crate::core::error::{Error, Result};
use crate::core::session::shell_quote;

/// Which dialect of start-up options and settings a shell needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    /// GNU bash (also when installed as `sh`).
    Bash,
    /// zsh.
    Zsh,
    /// Any other POSIX shell: dash, ash, ksh, mksh, `sh`.
    Posix,
}

impl ShellKind {
    /// The kind of the shell at `program`, by its name or, for a link such as
    /// `/bin/sh -> dash`, by the name of what it points to.
    pub fn detect(program: &Path) -> ShellKind {
        let name = |p: &Path| {
            p.file_name()
                .and_then(|n| n.to_str())
                .map(|n| n.trim_start_matches('-').to_owned())
        };
        let resolved = fs::canonicalize(program).ok();
        for candidate in [name(program), resolved.as_deref().and_then(name)]
            .into_iter()
            .flatten()
        {
            if candidate.starts_with("bash") {
                return ShellKind::Bash;
            }
            if candidate.starts_with("zsh") {
                return ShellKind::Zsh;
            }
        }
        ShellKind::Posix
    }

    /// The arguments that start it interactive, without rc files and without
    /// line editing (which would echo input on its own).
    pub fn args(self) -> Vec<String> {
        let args: &[&str] = match self {
            ShellKind::Bash => &["--norc", "--noprofile", "--noediting", "-i"],
            ShellKind::Zsh => &["-f", "+Z", "-i"],
            ShellKind::Posix => &["-i"],
        };
        args.iter().map(|&a| a.to_owned()).collect()
    }

    /// The lines typed into a new shell before it is used: echo off, the
    /// snapshot sourced (its output discarded), no history, no editor, the
    /// session variables, and the marker prompt ([`prompt_line`]).
    ///
    /// Each setting is its own line, so one the shell rejects cannot abort
    /// the others. The snapshot comes before ptypilot's settings, so it
    /// cannot undo them (turn line editing on, set `PROMPT_COMMAND`); the
    /// session variables come after it, so they win over it; the prompt
    /// comes last, and its first appearance tells that the shell is ready.
    /// `snapshot` and `env_file` are absolute paths.
    pub fn init_lines(
        self,
        nonce: &str,
        snapshot: Option<&Path>,
        env_file: Option<&Path>,
    ) -> String {
        let source = |path: &Path, redirect: &str| {
            // `\.`: an alias named `.` (a snapshot may define aliases) is
            // not expanded for a quoted word.
            format!("\\. {}{redirect}", shell_quote(&path.to_string_lossy()))
        };
        let mut lines = vec!["stty -echo 2>/dev/null".to_owned()];
        if let Some(path) = snapshot {
            lines.push(source(path, " >/dev/null 2>&1 </dev/null"));
        }
        let own: &[&str] = match self {
            ShellKind::Bash => &[
                "set +o history; unset HISTFILE PROMPT_COMMAND PS0",
                "set +o emacs 2>/dev/null; set +o vi 2>/dev/null",
            ],
            ShellKind::Zsh => &[
                "unsetopt zle prompt_cr prompt_sp 2>/dev/null",
                // `exit` exits even with background jobs, as in bash and dash.
                "unsetopt check_jobs check_running_jobs 2>/dev/null",
                "setopt prompt_subst 2>/dev/null; unset HISTFILE RPS1 RPROMPT",
                "precmd_functions=(); preexec_functions=(); unfunction precmd preexec 2>/dev/null",
            ],
            ShellKind::Posix => &[
                "command set +o emacs 2>/dev/null; command set +o vi 2>/dev/null",
                "unset HISTFILE",
            ],
        };
        lines.extend(own.iter().map(|&l| l.to_owned()));
        if let Some(path) = env_file {
            lines.push(source(path, " >/dev/null 2>&1"));
        }
        lines.push(prompt_line(nonce, self));
        let mut text = String::new();
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// The script that sets the session variables (`export NAME='value'`,
/// `unset NAME`), sourced by the new shell.
pub fn session_env_script(env: &[(String, Option<String>)]) -> String {
    let mut text = String::new();
    for (key, value) in env {
        match value {
            Some(value) => text.push_str(&format!("export {key}={}\n", shell_quote(value))),
            None => text.push_str(&format!("unset {key}\n")),
        }
    }
    text
}

/// Shells whose language is not POSIX sh: they cannot run the markers.
pub(super) const NOT_POSIX: &[&str] = &[
    "fish",
    "csh",
    "tcsh",
    "nu",
    "elvish",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
    "rc",
    "es",
];

/// Fails with `ERR_INVALID_ARG` for a shell known not to speak POSIX sh
/// (fish, csh, nushell, PowerShell, ...).
pub fn check_shell_name(shell: &str) -> Result<()> {
    let name = Path::new(shell)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(shell);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    if NOT_POSIX.contains(&name) {
        return Err(Error::invalid_arg(format!(
            "options.shell {shell:?} is not a POSIX shell; use bash, zsh, dash or another sh"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_names_and_links() {
        assert_eq!(
            ShellKind::detect(Path::new("/no/such/bash")),
            ShellKind::Bash
        );
        assert_eq!(ShellKind::detect(Path::new("zsh")), ShellKind::Zsh);
        assert_eq!(
            ShellKind::detect(Path::new("/no/such/dash")),
            ShellKind::Posix
        );
        assert!(ShellKind::Bash.args().contains(&"--norc".to_owned()));
        assert!(
            ShellKind::Posix
                .init_lines("n", None, None)
                .ends_with("PS2=\n")
        );
    }

    #[test]
    fn init_lines_source_the_snapshot_first_and_the_session_variables_last() {
        let lines = ShellKind::Bash.init_lines(
            "n",
            Some(Path::new("/tmp/my snap.sh")),
            Some(Path::new("/tmp/d/env")),
        );
        let lines: Vec<&str> = lines.lines().collect();
        assert_eq!(lines[0], "stty -echo 2>/dev/null");
        assert_eq!(lines[1], "\\. '/tmp/my snap.sh' >/dev/null 2>&1 </dev/null");
        assert!(lines[2].starts_with("set +o history"));
        assert_eq!(lines[lines.len() - 2], "\\. /tmp/d/env >/dev/null 2>&1");
        assert!(lines[lines.len() - 1].starts_with("__ptypilot_ps1="));
        let plain = ShellKind::Zsh.init_lines("n", None, None);
        assert!(!plain.contains("\\."));
    }

    #[test]
    fn session_env_script_quotes_values() {
        let script = session_env_script(&[
            ("A".into(), Some("it's\n$HOME `x`".into())),
            ("B".into(), None),
        ]);
        assert_eq!(script, "export A='it'\\''s\n$HOME `x`'\nunset B\n");
    }

    #[test]
    fn non_posix_shells_are_refused() {
        assert!(check_shell_name("/usr/bin/fish").is_err());
        assert!(check_shell_name("tcsh").is_err());
        assert!(check_shell_name("bash").is_ok());
        assert!(check_shell_name("/bin/sh").is_ok());
    }
}
