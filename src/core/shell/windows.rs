//! The persistent shell on Windows: not available yet; what is shared with
//! Unix (the output-cap fixups and the marker parser, which read text only)
//! is here, and [`unsupported`] is the coded error a caller gets.
//!
//! Why the Unix backend does not carry over: it gives the shell a control
//! FIFO it reads each command from, a secret line the shell must read
//! before it prints a command's end marker, and it checks the shell's
//! descriptors 0-2 and its terminal's modes after each command. Windows has
//! no FIFO a shell reads as stdin while its stdout is a console, no file
//! descriptors of another process to inspect, and a pseudo console's modes
//! are the console host's.
//!
//! What the two Windows shells allow for markers (the design for a
//! Windows backend):
//!
//! - PowerShell (`powershell.exe` 5.1, `pwsh` 7): a `prompt` function runs
//!   before each prompt and may write any text, `$?` and `$LASTEXITCODE`
//!   included, so OSC markers with a nonce and the exit status can be
//!   printed as on bash; `PSReadLine`'s `AcceptLine` handler (or
//!   `Set-PSReadLineKeyHandler -Chord Enter`) can print the start marker.
//!   Output reaches the pseudo console through the console host, which may
//!   reorder it against the prompt's writes (see docs/how-it-works.md).
//! - `cmd.exe`: `PROMPT` takes `$E` (ESC), so a prompt marker is possible,
//!   but a prompt cannot print `%ERRORLEVEL%` (it is not expanded in
//!   `PROMPT`), and there is no hook before a command runs: a backend must
//!   append `& echo <marker> %ERRORLEVEL%` to each command line itself.
pub use fixups::{BashFixup, apply_bash_fixups};
pub use markers::{Marker, MarkerParser, Piece};

#[path = "fixups.rs"]
mod fixups;
#[path = "markers.rs"]
mod markers;

use crate::core::error::{Error, ErrorCode};

/// `ERR_UNSUPPORTED`: the persistent shell needs a Unix shell.
pub fn unsupported() -> Error {
    Error::new(
        ErrorCode::Unsupported,
        "the persistent shell is not available on Windows yet (it drives bash, zsh or fish through a control FIFO); run commands with a session instead",
    )
}
