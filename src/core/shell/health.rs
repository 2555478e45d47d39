//! After every run: is the shell still usable for the next one?
//!
//! A command runs in the shell itself (`.`), so it can break the shell for
//! every later command: `exec >&-` or `exec 2>&-` close its output,
//! `exec 1>/tmp/file` sends it elsewhere, `exec 0</dev/null` takes away
//! its command lines, `stty raw -echo -opost` changes the terminal under
//! it. So once a command has ended, the driver checks:
//!
//! - the shell's descriptors ([`check_descriptors`]): 1 and 2 must still
//!   be the session's terminal, 0 its control FIFO (fish: the terminal).
//!   The facts come from the `fds` module of the core (Linux `/proc`,
//!   macOS `proc_pidfdinfo`); where the system will not tell, the
//!   descriptors count as fine and only the markers' own watchdog is left;
//! - the terminal's modes ([`same_modes`]): they must be those the shell
//!   started with; if not, ptypilot sets them back from the terminal's
//!   master side (nothing about the shell needs replacing for that), so
//!   every run starts with the same terminal, as a person would type
//!   `reset`. fish is left alone here: it sets its own modes for its
//!   prompt, and gives its commands the modes the last command left, which
//!   its run line therefore sets back first (see `script`).
//!
//! and the end marker came with its secret (the tracker's `lost` says it
//! did not). A shell that fails is replaced before the next run; the run
//! that broke it returns what it got, with a warning that says why.
//!
//! The descriptors are looked at while the shell may already run the next
//! line from its control FIFO: a probe line (see `watchdog`) written during
//! the command. Its redirections (`>/dev/tty`, `2>/dev/null`) apply to the
//! shell itself while it runs, so for that moment descriptors 1 and 2 are
//! not the terminal (never the other way round: a broken descriptor does not
//! look sound). A verdict about them counts only once that probe is over
//! (see [`Unfit::may_pass`]); descriptor 0 no line of ours redirects.

use crate::core::fds::{self, FdTarget};
use crate::core::proc_tree::Pid;

/// What the shell's descriptors must refer to.
#[derive(Debug, Clone)]
pub(super) struct Expected {
    /// Descriptor 0: the control FIFO (fish: the terminal).
    pub(super) stdin: FdTarget,
    /// What descriptor 0 is, in words.
    pub(super) stdin_name: &'static str,
    /// Descriptors 1 and 2: the terminal.
    pub(super) terminal: FdTarget,
}

/// A descriptor of the shell that is not what it must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unfit {
    /// The descriptor (0, 1 or 2).
    pub(super) fd: i32,
    /// The run's warning: what the command did, in words.
    pub(super) why: String,
}

impl Unfit {
    /// Whether a probe line the shell may be running right now could be
    /// the cause (its redirections change descriptors 1 and 2 while it
    /// runs; see the module docs): then look again once it is over.
    pub(super) fn may_pass(&self) -> bool {
        self.fd != 0
    }
}

/// Why the shell `pid` cannot run the next command, judged by its
/// descriptors 0, 1 and 2 (see the module docs); `None` when they are as
/// `expected` or the system would not tell.
pub(super) fn check_descriptors(pid: Pid, expected: &Expected) -> Option<Unfit> {
    let wanted = [
        (0, "standard input", &expected.stdin, expected.stdin_name),
        (1, "standard output", &expected.terminal, "its terminal"),
        (2, "standard error", &expected.terminal, "its terminal"),
    ];
    for (fd, role, want, want_name) in wanted {
        if *want == FdTarget::Unknown {
            continue;
        }
        let got = fds::of_process(pid, fd);
        if got == FdTarget::Unknown || got == *want {
            continue;
        }
        let now = match got {
            FdTarget::Closed => "is closed",
            FdTarget::Device { .. } => "is another device",
            FdTarget::Fifo { .. } => "is another pipe",
            _ => "is a file",
        };
        return Some(Unfit {
            fd,
            why: format!(
                "the command left the shell's {role} (fd {fd}) no longer {want_name} (it {now}); \
                 a new shell runs the next command"
            ),
        });
    }
    None
}

/// Whether two sets of terminal modes are the same (the flags and the
/// control characters; `termios` has no `PartialEq` in the libc crate
/// without its `extra_traits`).
pub(super) fn same_modes(a: &libc::termios, b: &libc::termios) -> bool {
    a.c_iflag == b.c_iflag
        && a.c_oflag == b.c_oflag
        && a.c_cflag == b.c_cflag
        && a.c_lflag == b.c_lflag
        && a.c_cc == b.c_cc
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn descriptors_are_judged_against_what_the_shell_was_given() {
        // This process plays the shell: its fd 0..2 are whatever the test
        // runner gave it, so expect exactly those.
        let me = std::process::id() as Pid;
        let expected = Expected {
            stdin: fds::of_process(me, 0),
            stdin_name: "its control FIFO",
            terminal: fds::of_process(me, 1),
        };
        let same_2 = fds::of_process(me, 2) == expected.terminal;
        let verdict = check_descriptors(me, &expected);
        assert_eq!(verdict.is_none(), same_2, "{verdict:?}");
        // A pipe is not the terminal.
        let (read, _write) = nix::unistd::pipe().unwrap();
        let wrong = Expected {
            stdin: fds::own(read.as_fd()),
            stdin_name: "its control FIFO",
            terminal: expected.terminal.clone(),
        };
        let unfit = check_descriptors(me, &wrong).unwrap();
        assert_eq!(unfit.fd, 0);
        assert!(!unfit.may_pass(), "no line of ours redirects fd 0");
        assert!(unfit.why.contains("standard input (fd 0)"), "{unfit:?}");
        // Descriptors 1 and 2 not the terminal: a probe line could be the
        // cause for a moment.
        let elsewhere = Expected {
            stdin: FdTarget::Unknown,
            stdin_name: "x",
            terminal: fds::own(read.as_fd()),
        };
        let unfit = check_descriptors(me, &elsewhere).unwrap();
        assert_eq!(unfit.fd, 1, "{unfit:?}");
        assert!(unfit.may_pass());
        let unknown = Expected {
            stdin: FdTarget::Unknown,
            stdin_name: "x",
            terminal: FdTarget::Unknown,
        };
        assert_eq!(check_descriptors(me, &unknown), None);
    }
}
