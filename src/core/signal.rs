//! Signals by name and number, one type on every platform.
//!
//! Unix: `nix`'s [`Signal`] itself (the kernel's numbers, every signal the
//! platform has). Windows has no signals; there [`Signal`] is the set Node
//! names in `os.constants.signals` on Windows, with Node's numbers there
//! (`SIGINT` 2, `SIGKILL` 9, `SIGTERM` 15, `SIGBREAK` 21), so a name or
//! number a caller passes means the same thing to `process.kill` and here.
//! What each one does to a program on Windows is the session's and the
//! process tree's business (see `docs/how-it-works.md`, "Windows").

#[cfg(unix)]
pub use nix::sys::signal::Signal;

#[cfg(windows)]
pub use self::windows::Signal;

#[cfg(windows)]
mod windows {
    /// A signal name Node knows on Windows, with Node's number for it.
    #[allow(clippy::upper_case_acronyms)]
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Signal {
        /// The console window closed (`CTRL_CLOSE_EVENT`).
        SIGHUP = 1,
        /// Ctrl+C (`CTRL_C_EVENT`).
        SIGINT = 2,
        /// Illegal instruction (never sent; named for completeness).
        SIGILL = 4,
        /// Floating-point exception (never sent).
        SIGFPE = 8,
        /// Unconditional termination (`TerminateProcess`).
        SIGKILL = 9,
        /// Segmentation fault (never sent).
        SIGSEGV = 11,
        /// Stop (not in Node's Windows list; Linux's number). Windows cannot
        /// stop a process from outside: never sent, so a tree kill goes
        /// straight to the kill.
        SIGSTOP = 19,
        /// Continue (not in Node's Windows list; Linux's number): never sent.
        SIGCONT = 18,
        /// A request to terminate; on Windows it terminates as `SIGKILL` does.
        SIGTERM = 15,
        /// Ctrl+Break (`CTRL_BREAK_EVENT`).
        SIGBREAK = 21,
        /// Abnormal termination (never sent).
        SIGABRT = 22,
        /// The console was resized.
        SIGWINCH = 28,
    }

    const ALL: [Signal; 12] = [
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGILL,
        Signal::SIGFPE,
        Signal::SIGKILL,
        Signal::SIGSEGV,
        Signal::SIGTERM,
        Signal::SIGCONT,
        Signal::SIGSTOP,
        Signal::SIGBREAK,
        Signal::SIGABRT,
        Signal::SIGWINCH,
    ];

    impl Signal {
        /// The signal's name, `"SIGINT"`.
        pub const fn as_str(self) -> &'static str {
            match self {
                Signal::SIGHUP => "SIGHUP",
                Signal::SIGINT => "SIGINT",
                Signal::SIGILL => "SIGILL",
                Signal::SIGFPE => "SIGFPE",
                Signal::SIGKILL => "SIGKILL",
                Signal::SIGSEGV => "SIGSEGV",
                Signal::SIGSTOP => "SIGSTOP",
                Signal::SIGCONT => "SIGCONT",
                Signal::SIGTERM => "SIGTERM",
                Signal::SIGBREAK => "SIGBREAK",
                Signal::SIGABRT => "SIGABRT",
                Signal::SIGWINCH => "SIGWINCH",
            }
        }

        /// Every signal, in number order.
        pub fn iterator() -> impl Iterator<Item = Signal> {
            ALL.into_iter()
        }
    }

    impl std::str::FromStr for Signal {
        type Err = ();

        fn from_str(name: &str) -> Result<Signal, ()> {
            ALL.into_iter().find(|s| s.as_str() == name).ok_or(())
        }
    }

    impl TryFrom<i32> for Signal {
        type Error = ();

        fn try_from(n: i32) -> Result<Signal, ()> {
            ALL.into_iter().find(|&s| s as i32 == n).ok_or(())
        }
    }

    impl std::fmt::Display for Signal {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.as_str())
        }
    }
}
