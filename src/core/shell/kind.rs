//! The shell's dialect: how to start bash, zsh or another POSIX `sh`
//! interactive without rc files or line editing, the lines typed into a new
//! shell, and the shells that cannot run the markers at all.

use std::fs;
use std::path::Path;

use super::{PS1_KEEP, PS1_VAR};
use crate::core::error::{Error, Result};

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

    /// The lines typed into a new shell before it is used: echo off, no
    /// history, no editor, and the marker prompt (taken from [`PS1_VAR`], so
    /// the control characters never travel through the terminal's input).
    ///
    /// Each setting is its own line, so one the shell rejects cannot abort
    /// the others; the prompt comes last, and its first appearance tells that
    /// the shell is ready.
    pub fn init_lines(self) -> String {
        let mut lines = vec!["stty -echo 2>/dev/null"];
        match self {
            ShellKind::Bash => {
                lines.push("set +o history; unset HISTFILE PROMPT_COMMAND PS0");
            }
            ShellKind::Zsh => {
                lines.push("unsetopt zle prompt_cr prompt_sp 2>/dev/null");
                // `exit` exits even with background jobs, as in bash and dash.
                lines.push("unsetopt check_jobs check_running_jobs 2>/dev/null");
                lines.push("setopt prompt_subst 2>/dev/null; unset HISTFILE RPS1 RPROMPT");
            }
            ShellKind::Posix => {
                lines.push("command set +o emacs 2>/dev/null; command set +o vi 2>/dev/null");
                lines.push("unset HISTFILE");
            }
        }
        let prompt = format!("{PS1_KEEP}=${PS1_VAR}; unset {PS1_VAR}; PS1=${PS1_KEEP}; PS2=");
        let mut text = String::new();
        for line in lines.iter().copied().chain([prompt.as_str()]) {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
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
        assert!(ShellKind::Posix.init_lines().ends_with("PS2=\n"));
    }

    #[test]
    fn non_posix_shells_are_refused() {
        assert!(check_shell_name("/usr/bin/fish").is_err());
        assert!(check_shell_name("tcsh").is_err());
        assert!(check_shell_name("bash").is_ok());
        assert!(check_shell_name("/bin/sh").is_ok());
    }
}
