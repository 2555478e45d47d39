//! Mouse reports: what a terminal sends for a click, a drag or the wheel,
//! encoded the way the program asked ([`encode_mouse`]), and read back
//! ([`parse_mouse`]).
//!
//! A program asks for reports with a *tracking mode* and chooses how they
//! are written with an *encoding* (xterm's ctlseqs, "Mouse Tracking"):
//!
//! | mode | reports |
//! | --- | --- |
//! | 9 (X10) | button presses (and the wheel), no modifiers |
//! | 1000 (normal) | presses, releases, the wheel, with modifiers |
//! | 1002 (button-event) | as 1000, and motion while a button is held |
//! | 1003 (any-event) | as 1002, and motion with no button held |
//!
//! | encoding | a report | columns |
//! | --- | --- | --- |
//! | default | `ESC [ M` and three bytes, each 32 + value | up to 223 |
//! | 1005 (UTF-8) | as default, values above 95 as UTF-8 characters | up to 2015 |
//! | 1006 (SGR) | `ESC [ < b ; x ; y M` (`m` for a release) | any |
//! | 1015 (urxvt) | `ESC [ 32+b ; x ; y M` | any |
//!
//! The button value `b` is 0 left, 1 middle, 2 right, 3 a release (not in
//! SGR, which names the button released and ends in `m`), 64 / 65 the
//! wheel up / down, 66 / 67 left / right; plus 4 for shift, 8 for alt
//! (meta), 16 for ctrl and 32 for motion. Coordinates are 1-based.
//!
//! ```
//! use ptypilot::core::keys::{
//!     MouseAction, MouseButton, MouseEncoding, MouseEvent, MouseMode, MouseTracking,
//!     encode_mouse, parse_mouse,
//! };
//! let mode = MouseMode { tracking: MouseTracking::Normal, encoding: MouseEncoding::Sgr };
//! let click = MouseEvent::new(MouseAction::Press, Some(MouseButton::Left), 9, 4);
//! assert_eq!(encode_mouse(&click, mode).unwrap().unwrap(), b"\x1b[<0;10;5M");
//! assert_eq!(parse_mouse(b"\x1b[<0;10;5M").unwrap().event, click);
//! ```

use crate::core::error::{Error, ErrorCode, Result};

/// Which mouse events the program asked to be told about (DECSET 9, 1000,
/// 1002, 1003; the last one set wins, resetting any of them turns reporting
/// off, as in xterm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MouseTracking {
    /// No reports: the mouse belongs to the terminal (selection).
    #[default]
    Off,
    /// Mode 9: presses only, without modifiers.
    X10,
    /// Mode 1000: presses, releases and the wheel.
    Normal,
    /// Mode 1002: also motion while a button is held.
    Button,
    /// Mode 1003: also motion with no button held.
    Any,
}

impl MouseTracking {
    /// The DEC private mode number, or `None` for [`MouseTracking::Off`].
    pub fn mode(self) -> Option<u16> {
        match self {
            MouseTracking::Off => None,
            MouseTracking::X10 => Some(9),
            MouseTracking::Normal => Some(1000),
            MouseTracking::Button => Some(1002),
            MouseTracking::Any => Some(1003),
        }
    }

    /// The name JS sees: `'x10'`, `'normal'`, `'button'`, `'any'`, or `None`.
    pub fn name(self) -> Option<&'static str> {
        match self {
            MouseTracking::Off => None,
            MouseTracking::X10 => Some("x10"),
            MouseTracking::Normal => Some("normal"),
            MouseTracking::Button => Some("button"),
            MouseTracking::Any => Some("any"),
        }
    }
}

/// How the program asked reports to be written (DECSET 1005, 1006, 1015;
/// the last one set wins, resetting one only undoes itself, as in xterm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MouseEncoding {
    /// Three bytes after `ESC [ M`, each 32 + value: columns and rows up to 223.
    #[default]
    Default,
    /// Mode 1005: as the default, values above 95 as UTF-8 (up to 2015).
    Utf8,
    /// Mode 1006: `ESC [ < b ; x ; y M` or `m`, decimal numbers.
    Sgr,
    /// Mode 1015: `ESC [ 32+b ; x ; y M`, decimal numbers.
    Urxvt,
}

impl MouseEncoding {
    /// The name JS sees: `'default'`, `'utf8'`, `'sgr'`, `'urxvt'`.
    pub fn name(self) -> &'static str {
        match self {
            MouseEncoding::Default => "default",
            MouseEncoding::Utf8 => "utf8",
            MouseEncoding::Sgr => "sgr",
            MouseEncoding::Urxvt => "urxvt",
        }
    }

    /// The largest 1-based column or row this encoding can report.
    pub fn limit(self) -> Option<u32> {
        match self {
            MouseEncoding::Default => Some(255 - 32),
            MouseEncoding::Utf8 => Some(2047 - 32),
            MouseEncoding::Sgr | MouseEncoding::Urxvt => None,
        }
    }
}

/// What the program asked for: the tracking mode and the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MouseMode {
    /// Which events are reported.
    pub tracking: MouseTracking,
    /// How reports are written.
    pub encoding: MouseEncoding,
}

/// A mouse button, or a step of the wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseButton {
    /// The left (first) button.
    Left,
    /// The middle button.
    Middle,
    /// The right button.
    Right,
    /// One step of the wheel away from the user (scrolls up).
    WheelUp,
    /// One step of the wheel towards the user (scrolls down).
    WheelDown,
    /// The wheel tilted left.
    WheelLeft,
    /// The wheel tilted right.
    WheelRight,
}

impl MouseButton {
    /// The button's name as JS takes and reports it.
    pub fn name(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Middle => "middle",
            MouseButton::Right => "right",
            MouseButton::WheelUp => "wheelUp",
            MouseButton::WheelDown => "wheelDown",
            MouseButton::WheelLeft => "wheelLeft",
            MouseButton::WheelRight => "wheelRight",
        }
    }

    /// The button named `name` (as [`MouseButton::name`] writes it,
    /// case-insensitive).
    pub fn from_name(name: &str) -> Option<MouseButton> {
        const ALL: [MouseButton; 7] = [
            MouseButton::Left,
            MouseButton::Middle,
            MouseButton::Right,
            MouseButton::WheelUp,
            MouseButton::WheelDown,
            MouseButton::WheelLeft,
            MouseButton::WheelRight,
        ];
        ALL.into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// True for the wheel, whose steps are presses without a release.
    pub fn is_wheel(self) -> bool {
        self.code() >= 64
    }

    fn code(self) -> u32 {
        match self {
            MouseButton::Left => 0,
            MouseButton::Middle => 1,
            MouseButton::Right => 2,
            MouseButton::WheelUp => 64,
            MouseButton::WheelDown => 65,
            MouseButton::WheelLeft => 66,
            MouseButton::WheelRight => 67,
        }
    }

    fn from_code(code: u32) -> Option<MouseButton> {
        Some(match code {
            0 => MouseButton::Left,
            1 => MouseButton::Middle,
            2 => MouseButton::Right,
            64 => MouseButton::WheelUp,
            65 => MouseButton::WheelDown,
            66 => MouseButton::WheelLeft,
            67 => MouseButton::WheelRight,
            _ => return None,
        })
    }
}

/// What happened to the mouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseAction {
    /// A button went down (or the wheel turned one step).
    Press,
    /// A button came up.
    Release,
    /// The mouse moved to another cell.
    Move,
}

impl MouseAction {
    /// `'press'`, `'release'` or `'move'`.
    pub fn name(self) -> &'static str {
        match self {
            MouseAction::Press => "press",
            MouseAction::Release => "release",
            MouseAction::Move => "move",
        }
    }
}

/// One mouse event at a cell of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MouseEvent {
    /// Press, release or motion.
    pub action: MouseAction,
    /// The button pressed or released; for motion, the button held (`None`
    /// when none is). [`encode_mouse`] needs it for a press or release; a
    /// release read back from the default, UTF-8 or urxvt encoding has
    /// `None` (those only say that a button came up).
    pub button: Option<MouseButton>,
    /// Column, 0-based.
    pub col: u32,
    /// Row, 0-based.
    pub row: u32,
    /// Shift held.
    pub shift: bool,
    /// Alt (meta) held.
    pub alt: bool,
    /// Ctrl held.
    pub ctrl: bool,
}

impl MouseEvent {
    /// An event without modifiers.
    pub fn new(action: MouseAction, button: Option<MouseButton>, col: u32, row: u32) -> Self {
        MouseEvent {
            action,
            button,
            col,
            row,
            shift: false,
            alt: false,
            ctrl: false,
        }
    }

    fn modifier_bits(&self) -> u32 {
        u32::from(self.shift) * 4 + u32::from(self.alt) * 8 + u32::from(self.ctrl) * 16
    }
}

/// `ERR_MOUSE_OFF`: the program did not ask for mouse reports.
fn mouse_off() -> Error {
    Error::new(
        ErrorCode::MouseOff,
        "the program has not enabled mouse reporting (DECSET 9, 1000, 1002 or 1003): \
         a mouse event would reach it as typed characters",
    )
}

/// The bytes a terminal sends for `event` to a program in `mode`.
///
/// - `Ok(None)`: the mode does not report this kind of event (motion under
///   mode 1000, motion with no button under 1002, a release under X10), so
///   a terminal sends nothing.
/// - `ERR_MOUSE_OFF` when tracking is off.
/// - `ERR_INVALID_ARG` when the cell is beyond what the encoding can write
///   (column or row past 223 in the default encoding), or for an event that
///   makes no sense (a press or release without a button, releasing the
///   wheel).
pub fn encode_mouse(event: &MouseEvent, mode: MouseMode) -> Result<Option<Vec<u8>>> {
    let tracking = mode.tracking;
    if tracking == MouseTracking::Off {
        return Err(mouse_off());
    }
    if event.action != MouseAction::Move && event.button.is_none() {
        return Err(Error::invalid_arg(format!(
            "a {} needs its button",
            event.action.name()
        )));
    }
    if event.button.is_some_and(MouseButton::is_wheel) && event.action != MouseAction::Press {
        return Err(Error::invalid_arg(format!(
            "the wheel ({}) turns in steps: it is pressed, never released or held",
            event.button.map(MouseButton::name).unwrap_or_default()
        )));
    }
    let reported = match event.action {
        MouseAction::Press => true,
        MouseAction::Release => tracking != MouseTracking::X10,
        MouseAction::Move => match tracking {
            MouseTracking::Button => event.button.is_some(),
            MouseTracking::Any => true,
            _ => false,
        },
    };
    if !reported {
        return Ok(None);
    }
    if let Some(limit) = mode.encoding.limit() {
        for (what, value) in [("column", event.col), ("row", event.row)] {
            if value + 1 > limit {
                return Err(Error::invalid_arg(format!(
                    "{what} {value} cannot be reported: the program chose the {} mouse encoding, \
                     which reaches {what} {} at most (0-based); programs that handle wider \
                     screens enable SGR reports (DECSET 1006)",
                    mode.encoding.name(),
                    limit - 1
                )));
            }
        }
    }
    let mods = if tracking == MouseTracking::X10 {
        0
    } else {
        event.modifier_bits()
    };
    let sgr = mode.encoding == MouseEncoding::Sgr;
    let button = match (event.action, event.button) {
        (MouseAction::Release, Some(b)) if sgr => b.code(),
        (MouseAction::Release, _) => 3,
        // Motion with no button held.
        (_, None) => 3,
        (_, Some(b)) => b.code(),
    };
    let motion = if event.action == MouseAction::Move {
        32
    } else {
        0
    };
    let b = button + mods + motion;
    let (x, y) = (event.col + 1, event.row + 1);
    let bytes = match mode.encoding {
        MouseEncoding::Sgr => {
            let end = if event.action == MouseAction::Release {
                'm'
            } else {
                'M'
            };
            format!("\x1b[<{b};{x};{y}{end}").into_bytes()
        }
        MouseEncoding::Urxvt => format!("\x1b[{};{x};{y}M", b + 32).into_bytes(),
        MouseEncoding::Default => {
            // Every value is at most 255 here (checked above; b is at most 127).
            let mut out = b"\x1b[M".to_vec();
            out.extend([b + 32, x + 32, y + 32].map(|v| v as u8));
            out
        }
        MouseEncoding::Utf8 => {
            let mut out = b"\x1b[M".to_vec();
            for v in [b + 32, x + 32, y + 32] {
                let c = char::from_u32(v).expect("below the surrogates");
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
            out
        }
    };
    Ok(Some(bytes))
}

/// A mouse report read back from the bytes a terminal sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MouseReport {
    /// The event. A release in the default, UTF-8 or urxvt encoding does
    /// not say which button (`button` is `None`).
    pub event: MouseEvent,
    /// The encoding the report was written in. The default and UTF-8 forms
    /// read the same below column 96; such a report reads as default.
    pub encoding: MouseEncoding,
}

/// The one mouse report `data` is, or `None` (not a report, more than one,
/// or a button value no terminal sends).
pub fn parse_mouse(data: &[u8]) -> Option<MouseReport> {
    if let Some(rest) = data.strip_prefix(b"\x1b[<") {
        let (body, end) = rest.split_at(rest.len().checked_sub(1)?);
        let [b, x, y] = numbers(body)?;
        let release = match end {
            b"M" => false,
            b"m" => true,
            _ => return None,
        };
        return report(b, x, y, MouseEncoding::Sgr, release);
    }
    if let Some(rest) = data.strip_prefix(b"\x1b[M") {
        if let [b, x, y] = *rest {
            let [b, x, y] = [b, x, y].map(u32::from);
            return report(
                b.checked_sub(32)?,
                x.checked_sub(32)?,
                y.checked_sub(32)?,
                MouseEncoding::Default,
                false,
            );
        }
        let text = std::str::from_utf8(rest).ok()?;
        let mut chars = text.chars().map(u32::from);
        let (Some(b), Some(x), Some(y), None) =
            (chars.next(), chars.next(), chars.next(), chars.next())
        else {
            return None;
        };
        return report(
            b.checked_sub(32)?,
            x.checked_sub(32)?,
            y.checked_sub(32)?,
            MouseEncoding::Utf8,
            false,
        );
    }
    let body = data.strip_prefix(b"\x1b[")?.strip_suffix(b"M")?;
    let [b, x, y] = numbers(body)?;
    report(b.checked_sub(32)?, x, y, MouseEncoding::Urxvt, false)
}

/// Three `;`-separated decimal numbers.
fn numbers(body: &[u8]) -> Option<[u32; 3]> {
    let text = std::str::from_utf8(body).ok()?;
    let mut parts = text.split(';').map(|p| {
        (!p.is_empty() && p.len() <= 9 && p.bytes().all(|c| c.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    });
    let (Some(Some(b)), Some(Some(x)), Some(Some(y)), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    Some([b, x, y])
}

fn report(
    b: u32,
    x: u32,
    y: u32,
    encoding: MouseEncoding,
    sgr_release: bool,
) -> Option<MouseReport> {
    if x == 0 || y == 0 || b >= 128 {
        return None;
    }
    let motion = b & 32 != 0;
    let code = b & !(4 | 8 | 16 | 32);
    let (action, button) = match (code, motion) {
        (3, true) => (MouseAction::Move, None),
        (3, false) if encoding != MouseEncoding::Sgr => (MouseAction::Release, None),
        (code, _) => {
            let button = MouseButton::from_code(code)?;
            let action = if motion {
                MouseAction::Move
            } else if sgr_release {
                MouseAction::Release
            } else {
                MouseAction::Press
            };
            (action, Some(button))
        }
    };
    if button.is_some_and(MouseButton::is_wheel) && action != MouseAction::Press {
        return None;
    }
    Some(MouseReport {
        event: MouseEvent {
            action,
            button,
            col: x - 1,
            row: y - 1,
            shift: b & 4 != 0,
            alt: b & 8 != 0,
            ctrl: b & 16 != 0,
        },
        encoding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(tracking: MouseTracking, encoding: MouseEncoding) -> MouseMode {
        MouseMode { tracking, encoding }
    }

    fn ev(action: MouseAction, button: Option<MouseButton>, col: u32, row: u32) -> MouseEvent {
        MouseEvent::new(action, button, col, row)
    }

    fn enc(event: MouseEvent, m: MouseMode) -> Option<Vec<u8>> {
        encode_mouse(&event, m).unwrap()
    }

    use MouseAction::*;
    use MouseButton::*;

    #[test]
    fn off_is_an_error_with_its_own_code() {
        let err = encode_mouse(&ev(Press, Some(Left), 0, 0), MouseMode::default()).unwrap_err();
        assert_eq!(err.code.as_str(), "ERR_MOUSE_OFF");
        assert!(
            err.message.contains("has not enabled mouse reporting"),
            "{}",
            err.message
        );
    }

    #[test]
    fn each_encoding_writes_a_press_and_a_release() {
        let normal = |e| mode(MouseTracking::Normal, e);
        let press = ev(Press, Some(Right), 4, 2);
        let release = ev(Release, Some(Right), 4, 2);
        let default = normal(MouseEncoding::Default);
        assert_eq!(enc(press, default).unwrap(), b"\x1b[M\x22\x25\x23");
        assert_eq!(enc(release, default).unwrap(), b"\x1b[M\x23\x25\x23");
        let sgr = normal(MouseEncoding::Sgr);
        assert_eq!(enc(press, sgr).unwrap(), b"\x1b[<2;5;3M");
        assert_eq!(enc(release, sgr).unwrap(), b"\x1b[<2;5;3m");
        let urxvt = normal(MouseEncoding::Urxvt);
        assert_eq!(enc(press, urxvt).unwrap(), b"\x1b[34;5;3M");
        assert_eq!(enc(release, urxvt).unwrap(), b"\x1b[35;5;3M");
        let utf8 = normal(MouseEncoding::Utf8);
        assert_eq!(enc(press, utf8).unwrap(), b"\x1b[M\x22\x25\x23");
        let far = ev(Press, Some(Left), 299, 0);
        // 32 + 300 = 332 = U+014C, two bytes in UTF-8.
        assert_eq!(
            enc(far, utf8).unwrap(),
            "\x1b[M\u{20}\u{14c}\u{21}".as_bytes()
        );
    }

    #[test]
    fn modifiers_and_the_wheel() {
        let sgr = mode(MouseTracking::Normal, MouseEncoding::Sgr);
        let mut e = ev(Press, Some(Left), 0, 0);
        e.shift = true;
        assert_eq!(enc(e, sgr).unwrap(), b"\x1b[<4;1;1M");
        e.shift = false;
        e.alt = true;
        assert_eq!(enc(e, sgr).unwrap(), b"\x1b[<8;1;1M");
        e.alt = false;
        e.ctrl = true;
        assert_eq!(enc(e, sgr).unwrap(), b"\x1b[<16;1;1M");
        e.shift = true;
        e.alt = true;
        assert_eq!(enc(e, sgr).unwrap(), b"\x1b[<28;1;1M");
        assert_eq!(
            enc(ev(Press, Some(WheelUp), 1, 1), sgr).unwrap(),
            b"\x1b[<64;2;2M"
        );
        assert_eq!(
            enc(ev(Press, Some(WheelDown), 1, 1), sgr).unwrap(),
            b"\x1b[<65;2;2M"
        );
        assert_eq!(
            enc(ev(Press, Some(WheelRight), 1, 1), sgr).unwrap(),
            b"\x1b[<67;2;2M"
        );
        let wheel_up_release = encode_mouse(&ev(Release, Some(WheelUp), 0, 0), sgr);
        assert_eq!(wheel_up_release.unwrap_err().code, ErrorCode::InvalidArg);
    }

    #[test]
    fn motion_only_where_the_mode_reports_it() {
        let held = ev(Move, Some(Left), 3, 3);
        let free = ev(Move, None, 3, 3);
        let of = |t| mode(t, MouseEncoding::Sgr);
        assert_eq!(enc(held, of(MouseTracking::X10)), None);
        assert_eq!(enc(held, of(MouseTracking::Normal)), None);
        assert_eq!(enc(free, of(MouseTracking::Button)), None);
        assert_eq!(
            enc(held, of(MouseTracking::Button)).unwrap(),
            b"\x1b[<32;4;4M"
        );
        assert_eq!(enc(free, of(MouseTracking::Any)).unwrap(), b"\x1b[<35;4;4M");
        let default = mode(MouseTracking::Any, MouseEncoding::Default);
        assert_eq!(enc(free, default).unwrap(), b"\x1b[M\x43\x24\x24");
    }

    #[test]
    fn x10_reports_presses_without_modifiers() {
        let x10 = mode(MouseTracking::X10, MouseEncoding::Default);
        let mut e = ev(Press, Some(Middle), 0, 0);
        e.ctrl = true;
        assert_eq!(enc(e, x10).unwrap(), b"\x1b[M\x21\x21\x21");
        assert_eq!(enc(ev(Release, Some(Middle), 0, 0), x10), None);
    }

    #[test]
    fn the_default_encoding_stops_at_column_223() {
        let default = mode(MouseTracking::Normal, MouseEncoding::Default);
        assert_eq!(
            enc(ev(Press, Some(Left), 222, 0), default).unwrap(),
            b"\x1b[M\x20\xff\x21"
        );
        let err = encode_mouse(&ev(Press, Some(Left), 223, 0), default).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(
            err.message.contains("column 223 cannot be reported"),
            "{}",
            err.message
        );
        assert!(err.message.contains("DECSET 1006"), "{}", err.message);
        let sgr = mode(MouseTracking::Normal, MouseEncoding::Sgr);
        assert_eq!(
            enc(ev(Press, Some(Left), 299, 0), sgr).unwrap(),
            b"\x1b[<0;300;1M"
        );
        let urxvt = mode(MouseTracking::Normal, MouseEncoding::Urxvt);
        assert_eq!(
            enc(ev(Press, Some(Left), 299, 0), urxvt).unwrap(),
            b"\x1b[32;300;1M"
        );
    }

    #[test]
    fn every_report_reads_back() {
        let buttons = [
            None,
            Some(Left),
            Some(Middle),
            Some(Right),
            Some(WheelUp),
            Some(WheelDown),
        ];
        let encodings = [
            MouseEncoding::Default,
            MouseEncoding::Utf8,
            MouseEncoding::Sgr,
            MouseEncoding::Urxvt,
        ];
        for encoding in encodings {
            for action in [Press, Release, Move] {
                for button in buttons {
                    for mods in 0..8u8 {
                        let mut e = ev(action, button, 100, 7);
                        (e.shift, e.alt, e.ctrl) = (mods & 1 != 0, mods & 2 != 0, mods & 4 != 0);
                        let Ok(Some(bytes)) = encode_mouse(&e, mode(MouseTracking::Any, encoding))
                        else {
                            continue;
                        };
                        let back = parse_mouse(&bytes).unwrap_or_else(|| panic!("{bytes:?}"));
                        // Never read as a key.
                        assert_eq!(super::super::parse_key(&bytes, false), None, "{bytes:?}");
                        let mut want = e;
                        if action == Release && encoding != MouseEncoding::Sgr {
                            want.button = None;
                        }
                        assert_eq!(back.event, want, "{bytes:?}");
                        // Default and UTF-8 write the same bytes below column 96.
                        let read_as = if encoding == MouseEncoding::Utf8 && bytes.is_ascii() {
                            MouseEncoding::Default
                        } else {
                            encoding
                        };
                        assert_eq!(back.encoding, read_as, "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn what_is_not_one_report() {
        for data in [
            &b""[..],
            b"\x1b[A",
            b"\x1b[<0;1;1",
            b"\x1b[<0;1;1X",
            b"\x1b[<0;0;1M",
            b"\x1b[<0;1M",
            b"\x1b[<0;1;1;1M",
            b"\x1b[<a;1;1M",
            b"\x1b[<0;1;1M\x1b[<0;1;1M",
            b"\x1b[M !",
            b"\x1b[M !!!",
            b"\x1b[2;5M",
            b"\x1b[<64;1;1m",
            b"\x1b[<3;1;1M",
        ] {
            assert_eq!(parse_mouse(data), None, "{data:?}");
        }
    }
}
