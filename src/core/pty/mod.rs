//! The pseudo-terminal and starting a program on it, behind one interface
//! with one file per platform (portable-pty's `unix`/`win` split is the
//! model):
//!
//! - `unix/`: a pty pair (`posix_openpt`), its size (`TIOCSWINSZ`) and
//!   input flags (termios), and the ways a program is started on its slave
//!   (`posix_spawn` on Linux with glibc, `fork` for another user).
//! - `windows.rs`: a pseudo console (ConPTY, made here with the caller's
//!   [`ConPtyFlags`]), a program started on it suspended, and the Job
//!   Object that holds a session's processes, so a tree ends as surely as
//!   a process group does on Unix; `cmdline.rs` quotes its command line.
//!
//! [`set_size`] is the one call the rest of the core makes on every
//! platform; the rest is the platform's own.
#[cfg(unix)]
pub(crate) mod unix;
#[cfg(unix)]
pub use unix::{Pair, add_input_flags, open_pair, set_size, slave_name};

#[cfg_attr(not(windows), allow(dead_code))]
mod cmdline;
#[cfg(windows)]
pub(crate) mod windows;
#[cfg(windows)]
pub use windows::{Job, Opened, Program, PseudoConsole, Suspended, set_size, start_on_console};

/// How a Windows pseudo console is created (`CreatePseudoConsole`'s flags);
/// ignored on other platforms. The default is node-pty's: all off.
///
/// `inherit_cursor` makes the console host ask the terminal where its
/// cursor is (`ESC[6n`) and wait for the answer before the program runs:
/// with nobody answering (`answer_queries: false` and no front end that
/// answers) the program never starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConPtyFlags {
    /// `PSEUDOCONSOLE_INHERIT_CURSOR` (1): start at the terminal's cursor
    /// position, asked for with `ESC[6n`.
    pub inherit_cursor: bool,
    /// `PSEUDOCONSOLE_RESIZE_QUIRK` (2): the console host does not repaint
    /// the whole screen after a resize (for terminals that reflow).
    pub resize_quirk: bool,
    /// `PSEUDOCONSOLE_WIN32_INPUT_MODE` (4): the console host asks the
    /// terminal for win32-input-mode key events (`ESC[?9001h`).
    pub win32_input_mode: bool,
}

impl ConPtyFlags {
    /// The `dwFlags` value for `CreatePseudoConsole`.
    pub fn bits(self) -> u32 {
        u32::from(self.inherit_cursor)
            | u32::from(self.resize_quirk) << 1
            | u32::from(self.win32_input_mode) << 2
    }
}

#[cfg(test)]
mod tests {
    use super::ConPtyFlags;

    #[test]
    fn conpty_flags_are_create_pseudo_console_bits() {
        assert_eq!(ConPtyFlags::default().bits(), 0);
        let flag = |inherit_cursor, resize_quirk, win32_input_mode| ConPtyFlags {
            inherit_cursor,
            resize_quirk,
            win32_input_mode,
        };
        assert_eq!(flag(true, false, false).bits(), 1);
        assert_eq!(flag(false, true, false).bits(), 2);
        assert_eq!(flag(false, false, true).bits(), 4);
        assert_eq!(flag(true, true, true).bits(), 7);
    }
}
