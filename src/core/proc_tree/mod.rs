//! The process table and process-tree termination.
//!
//! A [`ProcRef`] names one process by pid *and* start time, so a reference
//! that outlives its process never signals another process that reused the
//! pid. On Linux every signal goes through a pidfd that is opened first and
//! then checked against the start time, so there is no window between the
//! check and the signal; where pidfds are unavailable (kernels before 5.3,
//! seccomp filters, macOS) a checked `kill(2)` is the fallback.
//!
//! [`tree`] collects a process's descendants (including those that moved to
//! another process group or session) and the members of process groups,
//! deepest first, which is the order to signal them in. On top of that:
//!
//! - [`tree_of`] is [`tree`] for roots known by identity (a reused pid is
//!   not followed), and never walks through the calling process;
//! - [`kill_tree`] signals a tree once, children first;
//! - [`kill_hard`] stops a tree (so nothing can fork any more), then kills
//!   it, children first;
//! - [`signal_group`] signals a process group, never our own, and only
//!   while a known member still holds the group id;
//! - [`wait_exit`] waits (without polling on Linux, through pidfds) until
//!   processes have exited;
//! - [`terminate`] is the whole graceful-then-forceful procedure: TERM,
//!   grace, KILL the tree, wait.
//!
//! ```no_run
//! use std::time::Duration;
//! use ptypilot::core::proc_tree::{self, ProcRef, Terminate};
//! use tokio_util::sync::CancellationToken;
//!
//! # async fn demo(pid: i32) -> ptypilot::core::Result<()> {
//! let Some(target) = ProcRef::of(pid) else { return Ok(()) };
//! let options = Terminate { group: false, grace: Some(Duration::from_secs(1)), timeout: Duration::from_secs(5) };
//! let gone = proc_tree::terminate(target, &options, &CancellationToken::new()).await?;
//! assert!(gone);
//! # Ok(())
//! # }
//! ```
//!
//! # Files
//!
//! One concept per file; the platform-neutral ones name only the table's
//! interface ([`info`], [`list`], [`ProcRef::signal`], ...):
//!
//! - `table`: [`ProcInfo`] (a row) and [`ProcRef`] (an identity), and the
//!   table's functions, which call the platform's reader;
//! - `tree`: the walk (deepest first, groups, the protected caller);
//! - `kill`: group signals, tree kills, the hard kill and [`terminate`];
//! - `wait`: [`wait_exit`];
//! - `signals`: signal names and numbers;
//! - the platform's reader, side by side: `linux` (`/proc`, with `pidfd`
//!   for signals and exit waits), `macos` (`proc_listallpids`,
//!   `proc_pidinfo`, `sysctl(KERN_PROCARGS2)`, parsed by `procargs`),
//!   `unix` (what both share: the checked `kill`, process groups) and
//!   `other` (no process table: every lookup comes back empty).

mod kill;
mod signals;
mod table;
mod tree;
mod wait;

#[cfg(unix)]
mod unix;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod pidfd;
#[cfg(target_os = "linux")]
use linux as sys;
/// Reading another process's memory: the input-state reader and the
/// sandbox's supervisor.
#[cfg(target_os = "linux")]
pub(crate) use linux::read_memory;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as sys;
// The layout parser runs in the tests on every platform.
#[cfg(any(target_os = "macos", test))]
mod procargs;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as sys;
// The group calls: `unix.rs` on Unix; on Windows, which has no process
// groups, `windows.rs` answers them (nothing is sent).
#[cfg(unix)]
use unix as groups;
#[cfg(windows)]
use windows as groups;

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod other;
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
use other as sys;

#[cfg(all(test, target_os = "linux"))]
mod tests;

pub use kill::{Terminate, group_signallable, kill_hard, kill_tree, signal_group, terminate};
pub use signals::{parse_signal, signal_from_number, signal_name};
pub use table::{
    ProcInfo, ProcRef, by_executable, find, group_members, info, left_behind, list, program_name,
};
pub use tree::{collect_tree, tree, tree_of};
pub use wait::wait_exit;

/// A process id.
pub type Pid = i32;
