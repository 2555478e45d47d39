//! The persistent shell on Windows: `cmd.exe`, and PowerShell (built, not
//! run here), in `windows_shell.rs`; what is shared with Unix (the
//! output-cap fixups and the marker parser, which read text only) is
//! included from the Unix module's files.
//!
//! Why the Unix backend does not carry over: it gives the shell a control
//! FIFO it reads each command from, a secret line the shell must read
//! before it prints a command's end marker, and it checks the shell's
//! descriptors 0-2 and its terminal's modes after each command. Windows has
//! no FIFO a shell reads as stdin while its stdout is a console, no file
//! descriptors of another process to inspect, and a pseudo console's modes
//! are the console host's. So the Windows shell types one line per run into
//! its console, and reads plain-text markers back (see `windows_shell.rs`).
pub use fixups::{BashFixup, apply_bash_fixups};
pub use markers::{Marker, MarkerParser, Piece};

#[path = "fixups.rs"]
mod fixups;
#[path = "markers.rs"]
mod markers;
#[path = "windows_shell.rs"]
mod windows_shell;
pub use windows_shell::*;
