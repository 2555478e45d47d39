//! The OS pieces of a session, behind one interface: the wake-up the
//! session thread sleeps on, the watch for the program's exit, `poll` over
//! the outputs, non-blocking reads and writes, and signals to the program.
//!
//! - `unix.rs`: descriptors, `poll(2)`, a pidfd (Linux) or a `waitpid`
//!   thread, `kill(2)`.
//! - `windows.rs`: pipes have no readiness on Windows, so each output pipe
//!   gets a reader thread and each input pipe a writer thread that move the
//!   bytes through buffers in this process; a "descriptor" there is the
//!   number of such a channel, and `poll` waits on their state. The exit is
//!   the process handle turning signalled.
//!
//! Both give the session loop the same calls with the same meaning, so the
//! loop (the drain, the listener's hold, the termination) is one piece of
//! code on every platform.
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(super) use unix::*;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::resize;
#[cfg(windows)]
pub(super) use windows::*;
