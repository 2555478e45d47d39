//! What vt100 hands back through its callbacks: the window title and the
//! title stack, replies to the terminal queries vt100 leaves to its user,
//! synchronized output and the kitty keyboard flags.

use super::super::keys::KittyFlags;
use super::cursor_on_screen;

/// Titles kept by the title stack (as xterm.js).
const TITLE_STACK_LIMIT: usize = 10;

/// What `vt100` reports through callbacks.
#[derive(Default)]
pub(super) struct Hooks {
    pub(super) title: String,
    /// Titles saved by `CSI 22 t` (XTWINOPS push), restored by `CSI 23 t`.
    pub(super) title_stack: Vec<String>,
    /// Bytes to send back to the program, in the order it asked.
    pub(super) replies: Vec<u8>,
    /// Inside a synchronized-output block (mode 2026 set).
    pub(super) synchronized: bool,
    /// The kitty keyboard protocol flags (`CSI > u` and friends).
    pub(super) kitty: KittyFlags,
}

impl vt100::Callbacks for Hooks {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.title = String::from_utf8_lossy(title).into_owned();
    }

    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        let has = |n: u16| params.iter().any(|p| p.first() == Some(&n));
        match (i1, i2, c) {
            // DSR: device status -> "OK".
            (None, None, 'n') if first == 5 => self.replies.extend_from_slice(b"\x1b[0n"),
            // DSR: cursor position report (1-based).
            (None, None, 'n') if first == 6 => {
                let (row, col) = cursor_on_screen(screen);
                let reply = format!("\x1b[{};{}R", row + 1, col + 1);
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // DECXCPR: the same with a `?`.
            (Some(b'?'), None, 'n') if first == 6 => {
                let (row, col) = cursor_on_screen(screen);
                let reply = format!("\x1b[?{};{}R", row + 1, col + 1);
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // DA1: a VT100 with advanced video, as xterm can report.
            (None, None, 'c') if first == 0 => self.replies.extend_from_slice(b"\x1b[?1;2c"),
            // DA2: terminal type 0, firmware version, no options.
            (Some(b'>'), None, 'c') if first == 0 => {
                self.replies.extend_from_slice(b"\x1b[>0;276;0c")
            }
            // XTVERSION.
            (Some(b'>'), None, 'q') => {
                let reply = format!("\x1bP>|ptypilot({})\x1b\\", env!("CARGO_PKG_VERSION"));
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // Push and pop the title (XTWINOPS 22/23; `;1` is the icon name
            // alone, which we do not keep). Programs such as vim push the
            // title before setting their own and pop it when they exit.
            (None, None, 't') if matches!(first, 22 | 23) => {
                let which = params.get(1).and_then(|p| p.first()).copied().unwrap_or(0);
                if which == 1 {
                    return;
                }
                if first == 22 {
                    if self.title_stack.len() == TITLE_STACK_LIMIT {
                        self.title_stack.remove(0);
                    }
                    self.title_stack.push(self.title.clone());
                } else if let Some(title) = self.title_stack.pop() {
                    self.title = title;
                }
            }
            // Window size in characters.
            (None, None, 't') if first == 18 => {
                let (rows, cols) = screen.size();
                let reply = format!("\x1b[8;{rows};{cols}t");
                self.replies.extend_from_slice(reply.as_bytes());
            }
            // Synchronized output (mode 2026) begins / ends.
            (Some(b'?'), None, 'h') if has(2026) => self.synchronized = true,
            (Some(b'?'), None, 'l') if has(2026) => self.synchronized = false,
            // The kitty keyboard protocol: push, pop, set, query.
            (Some(marker @ (b'>' | b'<' | b'=' | b'?')), None, 'u') => {
                let values: Vec<u16> = params
                    .iter()
                    .map(|p| p.first().copied().unwrap_or(0))
                    .collect();
                let alt = screen.alternate_screen();
                if let Some(reply) = self.kitty.apply(alt, marker, &values) {
                    self.replies.extend_from_slice(&reply);
                }
            }
            // DECRQM (mode queries) is answered in `compat`, which knows the
            // modes vt100 does not keep.
            _ => {}
        }
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        // Colour queries (`OSC 10/11/12 ; ?`): answer a light-on-dark terminal
        // so programs that wait for the answer do not stall.
        if let [which, b"?"] = params {
            let colour = match *which {
                b"10" => "ffff/ffff/ffff",
                b"11" => "0000/0000/0000",
                b"12" => "ffff/ffff/ffff",
                _ => return,
            };
            let which = String::from_utf8_lossy(which);
            let reply = format!("\x1b]{which};rgb:{colour}\x1b\\");
            self.replies.extend_from_slice(reply.as_bytes());
        }
    }
}
