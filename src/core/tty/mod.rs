//! What the pseudo-terminal itself says about input: the line discipline's
//! modes (echo, canonical), the foreground process group, and whether input
//! or output sits in the terminal unread.
//!
//! Every function takes the pty master (or the slave's path) and answers from
//! the kernel's terminal state; none of them reads or changes what the
//! program sees. `unix.rs` has the Linux and macOS bodies side by side
//! where they differ; where the kernel refuses (the terminal is gone, a
//! call fails) each function returns its documented weaker answer, never
//! an error.
//!
//! `windows.rs`: a pseudo console has no line discipline a caller can ask
//! (echo and line mode are the console input modes of the program, inside
//! the console host), no foreground process group, and no slave to open.
//! Every fact there is the quiet fallback, `None`: callers treat it as
//! "cannot tell" (the input state says `unknown`, a write is not taken for
//! a password, a wait does not use the terminal's modes).
//!
//! ```no_run
//! use ptypilot::core::tty;
//! # fn demo(master: ptypilot::core::fds::RawFd) {
//! if let Some(modes) = tty::modes(master) {
//!     println!("echo {} canonical {} -> {:?}", modes.echo, modes.canonical, modes.kind());
//! }
//! # }
//! ```
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

/// How the program reads: what its terminal modes make of typing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// Canonical mode with echo: a line, shown as it is typed (a prompt).
    Line,
    /// Canonical mode without echo: a line not shown (a password prompt).
    Password,
    /// Non-canonical (raw) mode: single keys (vim, less, a menu, a REPL with
    /// line editing, which echoes itself).
    Key,
}

impl InputKind {
    /// `"line"`, `"password"` or `"key"`.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Line => "line",
            InputKind::Password => "password",
            InputKind::Key => "key",
        }
    }
}

/// The line discipline's input modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// `ECHO`: the terminal shows what is typed.
    pub echo: bool,
    /// `ICANON`: input is read a line at a time, edited by the terminal.
    pub canonical: bool,
}

impl Modes {
    /// The kind of input these modes ask for.
    pub fn kind(self) -> InputKind {
        match (self.canonical, self.echo) {
            (true, true) => InputKind::Line,
            (true, false) => InputKind::Password,
            (false, _) => InputKind::Key,
        }
    }

    /// What is typed now is a secret: the terminal reads a line and does not
    /// show it (`getpass`, `read -s`, `sudo`, `ssh`). A raw-mode program
    /// always turns the terminal's echo off and echoes (or not) by itself,
    /// like vim; its keys are not taken for secrets, since the terminal cannot
    /// tell a password typed into a raw-mode prompt from an editor command.
    pub fn hides_input(self) -> bool {
        self.kind() == InputKind::Password
    }
}
