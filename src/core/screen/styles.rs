//! Styled runs: each row of the screen as runs of cells that share colours
//! and attributes, so a caller can tell which menu row is highlighted.
//!
//! Built only when asked for ([`Screen::styled_rows`]); the plain snapshot
//! does not pay for it.
//!
//! ```
//! use ptypilot::core::screen::{Color, Screen};
//! let mut screen = Screen::new(3, 20, 0);
//! screen.process(b"plain \x1b[1;31mred\x1b[0m \x1b[7m sel \x1b[0m", &mut Vec::new());
//! let rows = screen.styled_rows();
//! let red = &rows[0][1];
//! assert_eq!((red.col, red.text.as_str(), red.fg, red.bold), (6, "red", Color::Indexed(1), true));
//! assert!(rows[0][3].inverse);
//! assert_eq!(rows[0][3].text, " sel ");
//! ```

use super::Screen;

/// A colour of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Color {
    /// The terminal's default colour.
    #[default]
    Default,
    /// One of the 256 indexed colours (0-7 normal, 8-15 bright).
    Indexed(u8),
    /// A true colour.
    Rgb(u8, u8, u8),
}

impl From<vt100::Color> for Color {
    fn from(c: vt100::Color) -> Self {
        match c {
            vt100::Color::Default => Color::Default,
            vt100::Color::Idx(i) => Color::Indexed(i),
            vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
}

/// Adjacent cells of one row with the same colours and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyledRun {
    /// First column (0-based).
    pub col: u16,
    /// Columns covered (a wide character covers two).
    pub width: u16,
    /// The characters; an empty cell is a space.
    pub text: String,
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Bold (SGR 1).
    pub bold: bool,
    /// Dim (SGR 2).
    pub dim: bool,
    /// Italic (SGR 3).
    pub italic: bool,
    /// Underlined (SGR 4).
    pub underline: bool,
    /// Inverse video (SGR 7): how curses and most menus highlight.
    pub inverse: bool,
}

impl StyledRun {
    /// True when the run looks like plain text on the default background.
    pub fn is_plain(&self) -> bool {
        self.fg == Color::Default
            && self.bg == Color::Default
            && !(self.bold || self.dim || self.italic || self.underline || self.inverse)
    }

    fn same_style(&self, other: &StyledRun) -> bool {
        (
            self.fg,
            self.bg,
            self.bold,
            self.dim,
            self.italic,
            self.underline,
            self.inverse,
        ) == (
            other.fg,
            other.bg,
            other.bold,
            other.dim,
            other.italic,
            other.underline,
            other.inverse,
        )
    }
}

/// Whether a blank cell with this style shows anything (a background, a
/// reverse-video or underlined space).
fn blank_shows(run: &StyledRun) -> bool {
    run.bg != Color::Default || run.inverse || run.underline
}

impl Screen {
    /// Every visible row as styled runs, left to right. A row ends after its
    /// last cell that shows something: a character, or a blank with a
    /// background, inverse video or underline (the padding of a highlighted
    /// menu row is kept); plain blanks after it are left out, so the runs'
    /// text of a row without such padding is the row of `lines`.
    pub fn styled_rows(&mut self) -> Vec<Vec<StyledRun>> {
        self.styled(true)
    }

    /// Every visible row as its cells, left to right, one [`StyledRun`] per
    /// cell (a wide character is one cell of width 2), ending where
    /// [`Screen::styled_rows`] ends: what a picture of the screen draws.
    pub fn styled_cells(&mut self) -> Vec<Vec<StyledRun>> {
        self.styled(false)
    }

    /// Styled runs, or single cells when not `merge`.
    fn styled(&mut self, merge: bool) -> Vec<Vec<StyledRun>> {
        self.catch_up();
        let (rows, cols) = self.size();
        let stand_ins = &self.compat.stand_ins;
        let screen = self.parser.screen();
        (0..rows)
            .map(|row| {
                let mut runs: Vec<StyledRun> = Vec::new();
                // Length of `runs` (and of the last run's text and width)
                // after the last cell that shows something.
                let mut keep = (0, 0, 0);
                for col in 0..cols {
                    let Some(cell) = screen.cell(row, col) else {
                        break;
                    };
                    if cell.is_wide_continuation() {
                        continue;
                    }
                    let width = if cell.is_wide() { 2 } else { 1 };
                    let cell_run = StyledRun {
                        col,
                        width,
                        text: if cell.has_contents() {
                            stand_ins.restore(cell.contents().to_owned())
                        } else {
                            " ".to_owned()
                        },
                        fg: cell.fgcolor().into(),
                        bg: cell.bgcolor().into(),
                        bold: cell.bold(),
                        dim: cell.dim(),
                        italic: cell.italic(),
                        underline: cell.underline(),
                        inverse: cell.inverse(),
                    };
                    let shows =
                        (cell.has_contents() && cell.contents() != " ") || blank_shows(&cell_run);
                    match runs.last_mut() {
                        Some(last) if merge && last.same_style(&cell_run) => {
                            last.text.push_str(&cell_run.text);
                            last.width += width;
                        }
                        _ => runs.push(cell_run),
                    }
                    if shows {
                        let last = runs.last().map_or((0, 0), |r| (r.text.len(), r.width));
                        keep = (runs.len(), last.0, last.1);
                    }
                }
                let (n, text_len, width) = keep;
                runs.truncate(n);
                if let Some(last) = runs.last_mut() {
                    last.text.truncate(text_len);
                    last.width = width;
                }
                runs
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(bytes: &[u8], rows: u16, cols: u16) -> (Screen, Vec<Vec<StyledRun>>) {
        let mut screen = Screen::new(rows, cols, 0);
        screen.process(bytes, &mut Vec::new());
        let styled = screen.styled_rows();
        (screen, styled)
    }

    fn joined(runs: &[StyledRun]) -> String {
        runs.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn runs_split_where_the_style_changes_and_join_to_the_row() {
        let (mut screen, rows) = rows_of(
            b"a \x1b[32mgreen\x1b[0m \x1b[38;5;208morange\x1b[48;2;1;2;3mrgb\x1b[0m   \r\n\x1b[3;4mit\x1b[0m",
            3,
            40,
        );
        let lines = screen.lines();
        assert_eq!(joined(&rows[0]), lines[0]);
        assert_eq!(joined(&rows[1]), lines[1]);
        assert!(rows[2].is_empty());
        let texts: Vec<&str> = rows[0].iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["a ", "green", " ", "orange", "rgb"]);
        assert_eq!(rows[0][1].fg, Color::Indexed(2));
        assert_eq!(rows[0][3].fg, Color::Indexed(208));
        assert_eq!(rows[0][4].bg, Color::Rgb(1, 2, 3));
        assert_eq!(rows[0][4].fg, Color::Indexed(208));
        assert!(rows[0][0].is_plain() && rows[0][2].is_plain());
        assert!(rows[1][0].italic && rows[1][0].underline && !rows[1][0].bold);
        assert_eq!((rows[0][4].col, rows[0][4].width), (14, 3));
    }

    #[test]
    fn a_highlighted_rows_padding_is_kept_and_plain_blanks_after_it_are_not() {
        let (_, rows) = rows_of(b"  \x1b[7m Banana    \x1b[0m     ", 2, 30);
        assert_eq!(rows[0].len(), 2);
        assert_eq!(rows[0][1].text, " Banana    ");
        assert!(rows[0][1].inverse);
        assert_eq!((rows[0][1].col, rows[0][1].width), (2, 11));
        // An erase with a background colour paints the rest of the row.
        let (_, rows) = rows_of(b"bar\x1b[44m\x1b[K\x1b[0m", 2, 10);
        assert_eq!(rows[0][1].bg, Color::Indexed(4));
        assert_eq!((rows[0][1].col, rows[0][1].width), (3, 7));
    }

    #[test]
    fn wide_characters_cover_two_columns() {
        let (_, rows) = rows_of("x\x1b[1m日本\x1b[0my".as_bytes(), 2, 10);
        assert_eq!(rows[0][1].text, "日本");
        assert_eq!((rows[0][1].col, rows[0][1].width), (1, 4));
        assert_eq!((rows[0][2].col, rows[0][2].text.as_str()), (5, "y"));
    }

    #[test]
    fn cells_are_one_run_each() {
        let mut screen = Screen::new(2, 10, 0);
        screen.process(
            "x\x1b[1m日e\u{301}\x1b[0m \x1b[44m ".as_bytes(),
            &mut Vec::new(),
        );
        let cells = screen.styled_cells();
        let got: Vec<(u16, u16, &str, bool)> = cells[0]
            .iter()
            .map(|c| (c.col, c.width, c.text.as_str(), c.bold))
            .collect();
        assert_eq!(
            got,
            [
                (0, 1, "x", false),
                (1, 2, "日", true),
                (3, 1, "e\u{301}", true),
                (4, 1, " ", false),
                (5, 1, " ", false)
            ]
        );
        assert_eq!(cells[0][4].bg, Color::Indexed(4));
        assert!(cells[1].is_empty());
    }

    #[test]
    fn text_that_waited_unparsed_is_styled_too() {
        // A long coloured flood waits unparsed (fast forward); asking for
        // styles parses it first.
        let mut flood = Vec::new();
        for i in 0..3000 {
            flood.extend_from_slice(format!("\x1b[31mline {i}\x1b[0m\r\n").as_bytes());
        }
        let (mut screen, rows) = rows_of(&flood, 5, 20);
        assert_eq!(screen.lines()[3], "line 2999");
        assert_eq!(rows[3][0].text, "line 2999");
        assert_eq!(rows[3][0].fg, Color::Indexed(1));
    }
}
