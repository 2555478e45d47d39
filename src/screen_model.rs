//! `ScreenModel` binding: the screen model alone, without a program or a pty.
//!
//! The JS class `ScreenModel` (lib/screen-model.js) wraps this
//! `NativeScreenModel`: bytes written to it are what a program printed, and
//! `screen()` is what a terminal of that size would show, exactly as
//! `PtySession.screen()` reports it for a session. Used to replay recordings,
//! test screens without spawning anything, and to compare the model with
//! other terminal emulators.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::screen::{self, Screen};
use crate::error::IntoJs;
use crate::options::Opts;
use crate::pty_session::{ScreenSnapshot, StyledScreen};

/// A terminal screen fed by hand.
#[napi]
pub struct NativeScreenModel {
    screen: Screen,
    /// Bytes written so far (`ScreenSnapshot.seq`).
    seq: u64,
    /// Answers to queries not yet taken by `write`.
    replies: Vec<u8>,
}

#[napi]
impl NativeScreenModel {
    /// A blank screen: `{ cols = 80, rows = 24, scrollback = 1000 }`, checked
    /// as `PtySession` checks them (`ERR_INVALID_ARG` naming the option).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, options: Option<Unknown>) -> Result<Self> {
        let mut opts = Opts::new(options, "options").into_js(&env)?;
        let cols = opts.number("cols").into_js(&env)?.unwrap_or(80.0);
        let rows = opts.number("rows").into_js(&env)?.unwrap_or(24.0);
        let (cols, rows) = screen::validate_size(cols, rows)
            .map_err(|mut e| {
                e.message = format!("options.{}", e.message);
                e
            })
            .into_js(&env)?;
        let scrollback = opts
            .integer("scrollback", 0.0, f64::from(screen::MAX_SCROLLBACK))
            .into_js(&env)?
            .map_or(1000, |n| n as usize);
        opts.finish().into_js(&env)?;
        Ok(NativeScreenModel {
            screen: Screen::new(rows, cols, scrollback),
            seq: 0,
            replies: Vec::new(),
        })
    }

    /// Feeds program output (text as UTF-8, or bytes; a character or a
    /// sequence may be split across calls). Returns what the terminal would
    /// answer to the queries in it (cursor position, device attributes ...),
    /// or `''`.
    #[napi(catch_unwind)]
    pub fn write(&mut self, data: Either<String, Uint8Array>) -> String {
        let bytes: &[u8] = match &data {
            Either::A(text) => text.as_bytes(),
            Either::B(bytes) => bytes,
        };
        self.seq += bytes.len() as u64;
        self.screen.process(bytes, &mut self.replies);
        if self.replies.is_empty() {
            return String::new();
        }
        let replies = String::from_utf8_lossy(&self.replies).into_owned();
        self.replies.clear();
        replies
    }

    /// Changes the size, as a terminal resize would.
    #[napi(catch_unwind)]
    pub fn resize(&mut self, env: &Env, cols: f64, rows: f64) -> Result<()> {
        let (cols, rows) = screen::validate_size(cols, rows).into_js(env)?;
        self.screen.resize(rows, cols);
        Ok(())
    }

    /// The screen now with the styled runs of every row.
    #[napi(catch_unwind)]
    pub fn screen_styled(&mut self) -> StyledScreen {
        let styles = self.screen.styled_rows();
        StyledScreen::new(self.screen.view(), styles, self.seq)
    }

    /// The screen now with every row's cells, one run per cell.
    #[napi(catch_unwind)]
    pub fn screen_cells(&mut self) -> StyledScreen {
        let cells = self.screen.styled_cells();
        StyledScreen::new(self.screen.view(), cells, self.seq)
    }

    /// The screen now (`lines` is added by the JS layer).
    #[napi(catch_unwind)]
    pub fn screen(&mut self) -> ScreenSnapshot {
        ScreenSnapshot::new(self.screen.view(), self.seq)
    }
}
