//! The shell's dialect: how to start bash, zsh, fish or another POSIX `sh`
//! interactive without rc files or line editing, how it gets its command
//! lines, what it runs first, and the shells that cannot run the markers.

use std::fs;
use std::path::Path;

use super::script::{fish_quote, prompt_line};
use crate::core::error::{Error, Result};
use crate::core::session::shell_quote;

/// Which dialect of start-up options and settings a shell needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    /// GNU bash (also when installed as `sh`).
    Bash,
    /// zsh.
    Zsh,
    /// fish (its own language; markers from its prompt, its
    /// `fish_postexec` event and the run line).
    Fish,
    /// Any other POSIX shell: dash, ash, ksh, mksh, `sh`.
    Posix,
}

/// The program that starts every shell: a POSIX `sh` that turns the
/// terminal's echo off, points the shell's standard input at its control
/// FIFO (not for fish) and replaces itself with the shell.
pub(super) const LAUNCHER: &str = "/bin/sh";

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
            if candidate.starts_with("fish") {
                return ShellKind::Fish;
            }
        }
        ShellKind::Posix
    }

    /// Whether the shell reads its command lines from the terminal (fish)
    /// rather than from its private control FIFO (all others). See the
    /// module docs of `shell` for why, and what follows.
    pub fn reads_terminal(self) -> bool {
        self == ShellKind::Fish
    }

    /// The shell's own arguments: interactive, without rc files and without
    /// line editing (which would echo input on its own); fish sources
    /// `init` (its settings and marker functions) before its first prompt.
    pub fn args(self, init: Option<&Path>) -> Vec<String> {
        let args: &[&str] = match self {
            ShellKind::Bash => &["--norc", "--noprofile", "--noediting", "-i"],
            ShellKind::Zsh => &["-f", "+Z", "-i"],
            ShellKind::Fish => &["--no-config", "--private", "-i"],
            ShellKind::Posix => &["-i"],
        };
        let mut args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
        if let (ShellKind::Fish, Some(init)) = (self, init) {
            args.push("--init-command".to_owned());
            args.push(format!(
                "builtin source {}",
                fish_quote(&init.to_string_lossy())
            ));
        }
        args
    }

    /// What to spawn: `/bin/sh` (the launcher) with a script and the shell's command
    /// line. The script turns the terminal's echo off first — so that the
    /// shell takes those modes as its own (bash and zsh restore them after
    /// a job dies of a signal, fish gives them to every command) and input
    /// written for a command is not shown as its output — then runs the
    /// shell with its standard input from the control FIFO `ctl` (`None`
    /// for fish, which reads the terminal). `program` is the shell as
    /// given (looked up on PATH by the launcher), so `$0` and its messages
    /// name it as a user would.
    pub fn launch(
        self,
        program: &str,
        ctl: Option<&Path>,
        init: Option<&Path>,
    ) -> (String, Vec<String>) {
        let mut args = vec!["-c".to_owned()];
        match ctl {
            Some(ctl) => {
                args.push("stty -echo 2>/dev/null; exec \"$@\" <\"$0\"".to_owned());
                args.push(ctl.to_string_lossy().into_owned());
            }
            None => {
                args.push("stty -echo 2>/dev/null; exec \"$@\"".to_owned());
                args.push("sh".to_owned());
            }
        }
        args.push(program.to_owned());
        args.extend(self.args(init));
        (LAUNCHER.to_owned(), args)
    }

    /// The lines a new POSIX shell reads first (from its control FIFO): the
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
        let mut lines = Vec::new();
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
            ShellKind::Posix | ShellKind::Fish => &[
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

/// The script a new fish sources before its first prompt (`--init-command`):
/// the snapshot (its output discarded), quiet settings (no greeting, title,
/// right prompt or autosuggestions), the session variables, and the marker
/// functions:
///
/// - `__ptypilot_modes` keeps the terminal's modes as fish gives them to
///   its commands (`stty -g`), for the run line to set them again;
/// - `fish_prompt` prints the `A` marker with `$status`;
/// - a `fish_postexec` handler (fish emits the event after every line read
///   at its prompt — every such line is a run line — also one an interrupt
///   cut short) keeps `$status`, returns from a per-run directory, prints
///   `D`, reads the secret from `end_pipe` and prints `E`.
///
/// The start marker `C` is printed by the run line itself, after the
/// terminal modes were set (see `script`), not by a `fish_preexec` handler,
/// which would print it before.
///
/// Every command word that a function could take over is run through
/// `builtin`. The nonce is in the functions (as it is in bash's `PS1`),
/// not in the environment.
pub(super) fn fish_init(
    nonce: &str,
    end_pipe: &Path,
    snapshot: Option<&Path>,
    env_file: Option<&Path>,
) -> String {
    let mut text = String::new();
    if let Some(path) = snapshot {
        text.push_str(&format!(
            "builtin source {} >/dev/null 2>&1 </dev/null\n",
            fish_quote(&path.to_string_lossy())
        ));
    }
    let end = fish_quote(&end_pipe.to_string_lossy());
    text.push_str(&format!(
        "set -g fish_greeting
set -g fish_autosuggestion_enabled 0
function fish_greeting; end
function fish_title; end
function fish_right_prompt; end
function fish_mode_prompt; end
command stty -echo </dev/tty 2>/dev/null
set -g __ptypilot_modes (command stty -g </dev/tty 2>/dev/null)
function fish_prompt
    builtin printf '\\e]133;A;%s;%s;%s\\a' $status {nonce} \"$__ptypilot_p\"
end
function __ptypilot_postexec --on-event fish_postexec
    set -l st $status
    if set -q __ptypilot_cwd[1]
        builtin cd $__ptypilot_cwd
        set -e __ptypilot_cwd
    end
    builtin printf '\\e]133;D;%s\\a' {nonce} >/dev/tty
    builtin read -l s <{end}
    builtin printf '\\e]133;E;%s;%s;%s\\a' $st $s {nonce} >/dev/tty
end
"
    ));
    if let Some(path) = env_file {
        text.push_str(&format!(
            "builtin source {} >/dev/null 2>&1\n",
            fish_quote(&path.to_string_lossy())
        ));
    }
    text
}

/// The script that sets the session variables, sourced by the new shell:
/// `export NAME='value'` / `unset NAME`, or for fish `set -gx NAME 'value'`
/// / `set -e NAME`.
pub fn session_env_script(env: &[(String, Option<String>)], kind: ShellKind) -> String {
    let mut text = String::new();
    for (key, value) in env {
        let line = match (kind, value) {
            (ShellKind::Fish, Some(value)) => format!("set -gx {key} {}\n", fish_quote(value)),
            (ShellKind::Fish, None) => format!("set -e {key}\n"),
            (_, Some(value)) => format!("export {key}={}\n", shell_quote(value)),
            (_, None) => format!("unset {key}\n"),
        };
        text.push_str(&line);
    }
    text
}

/// Shells whose language is neither POSIX sh nor fish: they cannot run
/// the markers.
pub(super) const UNSUPPORTED: &[&str] = &[
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

/// Fails with `ERR_INVALID_ARG` for a shell known to speak neither POSIX
/// sh nor fish (csh, nushell, PowerShell, ...).
pub fn check_shell_name(shell: &str) -> Result<()> {
    let name = Path::new(shell)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(shell);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    if UNSUPPORTED.contains(&name) {
        return Err(Error::invalid_arg(format!(
            "options.shell {shell:?} is not a POSIX shell or fish; use bash, zsh, dash, fish or another sh"
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
            ShellKind::detect(Path::new("/usr/bin/fish")),
            ShellKind::Fish
        );
        assert_eq!(
            ShellKind::detect(Path::new("/no/such/dash")),
            ShellKind::Posix
        );
        assert!(ShellKind::Bash.args(None).contains(&"--norc".to_owned()));
        assert!(ShellKind::Fish.reads_terminal());
        assert!(!ShellKind::Posix.reads_terminal());
        assert!(
            ShellKind::Posix
                .init_lines("n", None, None)
                .ends_with("PS2=\n")
        );
    }

    #[test]
    fn the_launcher_gives_the_shell_its_control_fifo_as_stdin() {
        let (program, args) = ShellKind::Bash.launch("bash", Some(Path::new("/tmp/d/ctl")), None);
        assert_eq!(program, "/bin/sh");
        assert_eq!(args[0], "-c");
        assert_eq!(args[1], "stty -echo 2>/dev/null; exec \"$@\" <\"$0\"");
        assert_eq!(args[2..4], ["/tmp/d/ctl", "bash"]);
        assert_eq!(args[4..], ShellKind::Bash.args(None)[..]);
        let (_, fish) = ShellKind::Fish.launch("fish", None, Some(Path::new("/tmp/d/init.fish")));
        assert_eq!(fish[1], "stty -echo 2>/dev/null; exec \"$@\"");
        assert_eq!(fish[2..4], ["sh", "fish"]);
        assert_eq!(
            fish[fish.len() - 2..],
            ["--init-command", "builtin source '/tmp/d/init.fish'"]
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
        assert_eq!(lines[0], "\\. '/tmp/my snap.sh' >/dev/null 2>&1 </dev/null");
        assert!(lines[1].starts_with("set +o history"));
        assert_eq!(lines[lines.len() - 2], "\\. /tmp/d/env >/dev/null 2>&1");
        assert!(lines[lines.len() - 1].starts_with("__ptypilot_ps1="));
        let plain = ShellKind::Zsh.init_lines("n", None, None);
        assert!(!plain.contains("\\."));
    }

    #[test]
    fn fish_init_defines_the_markers_after_the_snapshot() {
        let init = fish_init(
            "n0nce",
            Path::new("/tmp/d/end"),
            Some(Path::new("/tmp/it's.fish")),
            Some(Path::new("/tmp/d/env")),
        );
        let at = |what: &str| {
            init.find(what)
                .unwrap_or_else(|| panic!("{what} in {init}"))
        };
        assert!(
            at("builtin source '/tmp/it\\'s.fish' >/dev/null 2>&1 </dev/null")
                < at("function fish_prompt")
        );
        assert!(at("function fish_prompt") < at("--on-event fish_postexec"));
        assert!(at("builtin read -l s <'/tmp/d/end'") > at("133;D;"));
        assert!(at("builtin source '/tmp/d/env'") > at("133;E;"));
        assert_eq!(init.matches("n0nce").count(), 3);
    }

    #[test]
    fn session_env_script_quotes_values() {
        let env = [
            ("A".into(), Some("it's\n$HOME `x`".into())),
            ("B".into(), None),
        ];
        assert_eq!(
            session_env_script(&env, ShellKind::Posix),
            "export A='it'\\''s\n$HOME `x`'\nunset B\n"
        );
        assert_eq!(
            session_env_script(&env, ShellKind::Fish),
            "set -gx A 'it\\'s\n$HOME `x`'\nset -e B\n"
        );
    }

    #[test]
    fn shells_that_speak_neither_sh_nor_fish_are_refused() {
        assert!(check_shell_name("/usr/bin/fish").is_ok());
        assert!(check_shell_name("tcsh").is_err());
        assert!(check_shell_name("nu").is_err());
        assert!(check_shell_name("bash").is_ok());
        assert!(check_shell_name("/bin/sh").is_ok());
    }
}
