//! vt100's cells read to be printed again with their own attributes, and
//! the pen set back after: how the layer moves cells (left and right
//! margins, see `margins`) and puts the cursor past the last column with
//! the last cell printed again (a pending wrap, see `wrap`).

/// The SGR sequence that sets exactly the attributes of `$x`, a cell or the
/// screen (its pen): both have vt100's colour and attribute getters. vt100
/// keeps the colours and bold, dim, italic, underline and inverse.
macro_rules! sgr_of {
    ($x:expr) => {{
        let x = $x;
        sgr(
            x.fgcolor(),
            x.bgcolor(),
            [x.bold(), x.dim(), x.italic(), x.underline(), x.inverse()],
        )
    }};
}

/// A cell as it was read: what it shows and its attributes.
#[derive(Debug, Clone)]
pub(super) struct Copied {
    /// The character with its combining marks; empty for a blank cell.
    pub(super) text: String,
    /// The SGR sequence that sets its attributes.
    pub(super) sgr: Vec<u8>,
    /// Two columns wide (the next cell is its second half).
    pub(super) wide: bool,
}

impl Copied {
    /// `cell` with its attributes; what it shows only when `shown` (a blank
    /// otherwise, as the second half of a wide character whose first half
    /// is not copied with it).
    pub(super) fn of(cell: &vt100::Cell, shown: bool) -> Copied {
        let shown = shown && cell.has_contents();
        Copied {
            text: if shown {
                cell.contents().to_owned()
            } else {
                String::new()
            },
            sgr: sgr_of!(cell),
            wide: cell.is_wide() && shown,
        }
    }

    /// Prints it at the cursor: its attributes, then its character (a
    /// space for a blank cell).
    pub(super) fn print_to(&self, seq: &mut Vec<u8>) {
        seq.extend_from_slice(&self.sgr);
        if self.text.is_empty() {
            seq.push(b' ');
        } else {
            seq.extend_from_slice(self.text.as_bytes());
        }
    }
}

/// The SGR sequence of the attributes new text gets (vt100's pen), to set
/// it back after cells were printed again.
pub(super) fn pen(screen: &vt100::Screen) -> Vec<u8> {
    sgr_of!(screen)
}

/// An SGR sequence that sets exactly these attributes: the colours, and
/// bold, dim, italic, underline and inverse in that order.
fn sgr(fg: vt100::Color, bg: vt100::Color, flags: [bool; 5]) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut seq = String::from("\x1b[0");
    for (on, code) in flags.into_iter().zip([1, 2, 3, 4, 7]) {
        if on {
            let _ = write!(seq, ";{code}");
        }
    }
    for (color, base) in [(fg, 38), (bg, 48)] {
        match color {
            vt100::Color::Default => {}
            vt100::Color::Idx(n) => {
                let _ = write!(seq, ";{base};5;{n}");
            }
            vt100::Color::Rgb(r, g, b) => {
                let _ = write!(seq, ";{base};2;{r};{g};{b}");
            }
        }
    }
    seq.push('m');
    seq.into_bytes()
}
