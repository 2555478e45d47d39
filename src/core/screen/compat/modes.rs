//! Modes: DEC private and ANSI modes the layer keeps or corrects (DECSET,
//! DECRST, SM, RM), the screen switches (47, 1047, 1048, 1049), the mouse
//! tracking modes, and the reports of DECRQM.

use super::wrap::clamp_pending_wrap;
use super::{Compat, Parser, Run, alt_of, cancel};
use vt100::{MouseProtocolEncoding, MouseProtocolMode};

impl Compat {
    /// `CSI ? ... h` (`set`) or `l` ending at `i`.
    pub(super) fn dec_mode(&mut self, run: &mut Run<'_, '_>, i: usize, set: bool) {
        let values = std::mem::take(&mut self.csi.values);
        let switches = values.iter().any(|v| matches!(v, 47 | 1047 | 1049));
        // Where the cursor was before the sequence (its parameter bytes do
        // not move it): xterm keeps it across a screen switch.
        run.flush_to(i);
        let was_alt = run.parser.screen().alternate_screen();
        let (row, col) = run.parser.screen().cursor_position();
        if set && was_alt && values.contains(&1049) {
            // Already on the alternate screen, vt100 would reset it; xterm
            // saves the cursor and clears the screen, the cursor staying
            // where it is (its wrap flag ended by the clear).
            cancel(run, i);
            let mut seq = Vec::new();
            for &mode in &values {
                match mode {
                    1049 => seq.extend_from_slice(b"\x1b7\x1b[2J"),
                    _ => seq.extend_from_slice(format!("\x1b[?{mode}h").as_bytes()),
                }
            }
            run.inject(&seq);
            clamp_pending_wrap(run.parser);
            self.reset_wrap();
            self.maybe_wrap = false;
        } else {
            run.flush_to(i + 1);
        }
        for &mode in &values {
            match mode {
                6 => {
                    // vt100 homes the cursor, as xterm does.
                    self.origin = set;
                    self.grid_origin[alt_of(run.parser)] = set;
                    self.reset_wrap();
                    self.maybe_wrap = false;
                }
                7 => self.autowrap = set,
                45 => self.reverse_wrap = set,
                69 => {
                    self.lrmm = set;
                    if !set {
                        self.lr = None;
                    }
                }
                1045 => self.reverse_wrap_any = set,
                1047 if set => run.inject(b"\x1b[?47h"),
                // xterm clears the alternate screen as 1047 leaves it (47
                // never clears it, 1049 as it enters).
                1047 if run.parser.screen().alternate_screen() => run.inject(b"\x1b[2J\x1b[?47l"),
                1047 => {}
                1048 => {
                    run.inject(if set { b"\x1b7" } else { b"\x1b8" });
                    if set {
                        self.save_charsets(alt_of(run.parser));
                    } else {
                        self.restore_charsets(alt_of(run.parser));
                    }
                }
                1049 if set && !was_alt => self.save_charsets(0),
                // Already on the alternate screen: only the cursor is
                // saved (see above).
                1049 if set => self.save_charsets(1),
                1049 if !set => self.restore_charsets(0),
                _ => {}
            }
        }
        self.mouse_modes(run, &values, set);
        if switches {
            let alt = run.parser.screen().alternate_screen();
            if alt && !was_alt && values.contains(&1049) {
                // vt100 made the alternate grid anew. Entered by 47 or
                // 1047 it shows what it showed when last left, as in xterm.
                self.grid_margins[1] = None;
                self.grid_origin[1] = false;
            }
            if alt != was_alt {
                self.switched(run, alt, set, &values, (row, col));
            }
        }
        self.csi.values = values;
    }

    /// Mouse modes in a DECSET (`set`) or DECRST that vt100 has applied:
    /// xterm's rules where vt100's differ. The encodings 1005, 1006 and 1015
    /// exclude each other (the last one set wins; a reset only undoes its
    /// own), and resetting any tracking mode turns tracking off.
    pub(super) fn mouse_modes(&mut self, run: &mut Run<'_, '_>, values: &[u16], set: bool) {
        if set {
            match values
                .iter()
                .rev()
                .find(|v| matches!(v, 1005 | 1006 | 1015))
            {
                Some(1015) => {
                    self.urxvt_mouse = true;
                    run.inject(b"\x1b[?1005l\x1b[?1006l");
                }
                Some(_) => self.urxvt_mouse = false,
                None => {}
            }
        } else {
            if values.contains(&1015) {
                self.urxvt_mouse = false;
            }
            if values.iter().any(|v| matches!(v, 9 | 1000 | 1002 | 1003)) {
                run.inject(b"\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l");
            }
        }
    }

    /// After a switch to the `alt` screen or back (by `values`, set or
    /// reset, the cursor at `before` until then): vt100's grid in use is
    /// given the terminal's margins and origin mode (xterm keeps one of
    /// each for both screens; vt100 one per screen), and the cursor is put
    /// where xterm has it: where it was (or restored, by 1049 leaving),
    /// with its wrap flag, unless the switch cleared a screen (1049
    /// entering, 1047 leaving).
    pub(super) fn switched(
        &mut self,
        run: &mut Run<'_, '_>,
        alt: bool,
        set: bool,
        values: &[u16],
        before: (u16, u16),
    ) {
        let restored = !set && values.contains(&1049);
        let (row, col) = if restored {
            run.parser.screen().cursor_position()
        } else {
            before
        };
        let grid = usize::from(alt);
        let mut seq = Vec::new();
        if self.grid_margins[grid] != self.margins {
            match self.margins {
                Some((top, bottom)) => {
                    seq.extend_from_slice(format!("\x1b[{top};{bottom}r").as_bytes())
                }
                None => seq.extend_from_slice(b"\x1b[r"),
            }
            self.grid_margins[grid] = self.margins;
        }
        if self.grid_origin[grid] != self.origin {
            seq.extend_from_slice(if self.origin {
                b"\x1b[?6h"
            } else {
                b"\x1b[?6l"
            });
            self.grid_origin[grid] = self.origin;
        }
        let keeps_wrap = restored || (!values.contains(&1049) && (set || !values.contains(&1047)));
        let moved = !seq.is_empty() || !restored;
        if moved {
            let top = self.region(run.parser).0;
            seq.extend_from_slice(self.goto(row, col.min(self.cols - 1), top).as_bytes());
            run.inject(&seq);
            self.maybe_wrap = false;
        }
        if !keeps_wrap {
            self.reset_wrap();
        } else if moved && col >= self.cols {
            self.park(run.parser, row);
        }
        if self.written && col > 0 {
            // A combining character next joins the cell before the cursor
            // on this screen (xterm keeps `char_was_written` across the
            // switch); where that cell is empty xterm 379 shows nothing
            // (`ab CSI ? 1047 h U+0301` shows a blank screen), as for a
            // mark with nothing printed before it.
            let before = col.min(self.cols) - 1;
            let cell = run.parser.screen().cell(row, before);
            if !cell.is_some_and(|c| c.has_contents() || c.is_wide_continuation()) {
                self.written = false;
            }
        }
    }

    /// DECRQM's answer for a mode: 1 set, 2 reset, 0 not recognised.
    pub(super) fn mode_state(&self, parser: &Parser, private: bool, mode: u16) -> u8 {
        let screen = parser.screen();
        let set = match (private, mode) {
            (false, 4) => self.insert,
            (false, 20) => self.newline,
            (true, 1) => screen.application_cursor(),
            (true, 7) => self.autowrap,
            (true, 45) => self.reverse_wrap,
            (true, 69) => self.lrmm,
            (true, 1045) => self.reverse_wrap_any,
            (true, 9) => screen.mouse_protocol_mode() == MouseProtocolMode::Press,
            (true, 25) => !screen.hide_cursor(),
            (true, 47 | 1047 | 1049) => screen.alternate_screen(),
            (true, 1000) => screen.mouse_protocol_mode() == MouseProtocolMode::PressRelease,
            (true, 1002) => screen.mouse_protocol_mode() == MouseProtocolMode::ButtonMotion,
            (true, 1003) => screen.mouse_protocol_mode() == MouseProtocolMode::AnyMotion,
            (true, 1005) => screen.mouse_protocol_encoding() == MouseProtocolEncoding::Utf8,
            (true, 1006) => screen.mouse_protocol_encoding() == MouseProtocolEncoding::Sgr,
            (true, 1015) => self.urxvt_mouse,
            (true, 2004) => screen.bracketed_paste(),
            (true, 2026) => parser.callbacks().synchronized,
            _ => return 0,
        };
        if set { 1 } else { 2 }
    }
}
