//! Key names: what a name such as `ctrl+shift+left` means, and the one
//! canonical spelling of every key (the key ids the parsers return).
//!
//! A name is a base key with modifiers joined by `+` in any order, matched
//! case-insensitively (`enter`, `pageDown`, `ctrl+c`, `shift+tab`), or the
//! Emacs forms `C-c`, `M-x`, `S-tab`. A single character names itself.
//!
//! The canonical id of a key is the first documented name of its base
//! (`enter`, not `return`), prefixed by its modifiers in the order ctrl,
//! alt, shift. Three characters have names (`space`, `lt`, `gt`); a shifted
//! letter alone is the capital letter (`A`, not `shift+a`), and with other
//! modifiers the letter stays small (`ctrl+shift+a`, `alt+shift+a`). In a
//! name, a capital letter means shift (`alt+X` is `alt+shift+x`) except
//! after ctrl, where case does not matter (`Ctrl+C` is `ctrl+c`).

/// Modifier bits as xterm and the kitty protocol number them: the
/// protocols send `1 + bits`.
pub const SHIFT: u8 = 1;
/// The alt (meta) modifier bit.
pub const ALT: u8 = 2;
/// The ctrl modifier bit.
pub const CTRL: u8 = 4;
/// The three modifiers key ids carry and matching compares.
pub const MODS: u8 = SHIFT | ALT | CTRL;

/// A base key, before modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    /// A character key; letters are stored small, shift is a modifier.
    Char(char),
    Enter,
    Tab,
    Esc,
    Backspace,
    Delete,
    Insert,
    Home,
    End,
    PageUp,
    PageDown,
    Up,
    Down,
    Left,
    Right,
    /// F1 to F35 (xterm sends F1 to F12; the kitty protocol the rest).
    F(u8),
    /// Keypad key: its character in numeric mode and its SS3 final byte in
    /// application keypad mode.
    Keypad(u8, u8),
    /// A key only the kitty protocol reports (caps lock, media keys, the
    /// modifier keys themselves …), by its kitty code.
    Other(u32),
}

/// A key with its modifiers (only ctrl, alt and shift).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// The base key.
    pub base: Base,
    /// [`SHIFT`], [`ALT`] and [`CTRL`] bits.
    pub mods: u8,
}

impl Key {
    /// The key with letters small and shift explicit (`A` and `alt+A` are
    /// shift + `a`), so equal keys compare equal however they were written.
    /// With ctrl the case of a letter does not matter (`ctrl+C` is
    /// `ctrl+c`, as terminals send it); ctrl+shift is written out.
    pub fn normalized(self) -> Key {
        match self.base {
            Base::Char(c) if c.is_ascii_uppercase() => Key {
                base: Base::Char(c.to_ascii_lowercase()),
                mods: if self.mods & CTRL != 0 {
                    self.mods & MODS
                } else {
                    (self.mods | SHIFT) & MODS
                },
            },
            _ => Key {
                base: self.base,
                mods: self.mods & MODS,
            },
        }
    }

    /// The canonical id: `ctrl+alt+shift+x` order, `A` for a shifted letter
    /// alone, `space`, `lt`, `gt`.
    pub fn id(self) -> String {
        let key = self.normalized();
        let mut id = String::new();
        if let Base::Char(c) = key.base {
            if c.is_ascii_lowercase() && key.mods == SHIFT {
                id.push(c.to_ascii_uppercase());
                return id;
            }
        }
        if key.mods & CTRL != 0 {
            id.push_str("ctrl+");
        }
        if key.mods & ALT != 0 {
            id.push_str("alt+");
        }
        if key.mods & SHIFT != 0 {
            id.push_str("shift+");
        }
        push_base_name(key.base, &mut id);
        id
    }
}

/// Appends the canonical name of `base`.
fn push_base_name(base: Base, out: &mut String) {
    let name = match base {
        Base::Char(' ') => "space",
        Base::Char('<') => "lt",
        Base::Char('>') => "gt",
        Base::Char(c) => {
            out.push(c);
            return;
        }
        Base::Enter => "enter",
        Base::Tab => "tab",
        Base::Esc => "esc",
        Base::Backspace => "backspace",
        Base::Delete => "delete",
        Base::Insert => "insert",
        Base::Home => "home",
        Base::End => "end",
        Base::PageUp => "pageUp",
        Base::PageDown => "pageDown",
        Base::Up => "up",
        Base::Down => "down",
        Base::Left => "left",
        Base::Right => "right",
        Base::F(n) => {
            out.push('f');
            out.push_str(&n.to_string());
            return;
        }
        Base::Keypad(_, ss3) => keypad_name(ss3),
        Base::Other(code) => KITTY_ONLY
            .iter()
            .find(|(c, _)| *c == code)
            .map_or("unidentified", |(_, name)| name),
    };
    out.push_str(name);
}

/// The keypad keys with a legacy encoding: SS3 final byte (application
/// keypad mode), name, character (numeric mode).
pub const KEYPAD: &[(u8, &str, u8)] = &[
    (b'p', "kp0", b'0'),
    (b'q', "kp1", b'1'),
    (b'r', "kp2", b'2'),
    (b's', "kp3", b'3'),
    (b't', "kp4", b'4'),
    (b'u', "kp5", b'5'),
    (b'v', "kp6", b'6'),
    (b'w', "kp7", b'7'),
    (b'x', "kp8", b'8'),
    (b'y', "kp9", b'9'),
    (b'M', "kpEnter", b'\r'),
    (b'k', "kpPlus", b'+'),
    (b'm', "kpMinus", b'-'),
    (b'j', "kpMultiply", b'*'),
    (b'o', "kpDivide", b'/'),
    (b'n', "kpDecimal", b'.'),
];

fn keypad_name(ss3: u8) -> &'static str {
    KEYPAD
        .iter()
        .find(|(s, _, _)| *s == ss3)
        .map_or("kp", |(_, name, _)| name)
}

/// Keys only the kitty protocol reports, by kitty code, with their names.
/// (F13–F35 are [`Base::F`]; the keypad keys with a legacy encoding are
/// [`Base::Keypad`].)
pub const KITTY_ONLY: &[(u32, &str)] = &[
    (57358, "capsLock"),
    (57359, "scrollLock"),
    (57360, "numLock"),
    (57361, "printScreen"),
    (57362, "pause"),
    (57363, "menu"),
    (57415, "kpEqual"),
    (57416, "kpSeparator"),
    (57417, "kpLeft"),
    (57418, "kpRight"),
    (57419, "kpUp"),
    (57420, "kpDown"),
    (57421, "kpPageUp"),
    (57422, "kpPageDown"),
    (57423, "kpHome"),
    (57424, "kpEnd"),
    (57425, "kpInsert"),
    (57426, "kpDelete"),
    (57427, "kpBegin"),
    (57428, "mediaPlay"),
    (57429, "mediaPause"),
    (57430, "mediaPlayPause"),
    (57431, "mediaReverse"),
    (57432, "mediaStop"),
    (57433, "mediaFastForward"),
    (57434, "mediaRewind"),
    (57435, "mediaTrackNext"),
    (57436, "mediaTrackPrevious"),
    (57437, "mediaRecord"),
    (57438, "lowerVolume"),
    (57439, "raiseVolume"),
    (57440, "muteVolume"),
    (57441, "leftShift"),
    (57442, "leftControl"),
    (57443, "leftAlt"),
    (57444, "leftSuper"),
    (57445, "leftHyper"),
    (57446, "leftMeta"),
    (57447, "rightShift"),
    (57448, "rightControl"),
    (57449, "rightAlt"),
    (57450, "rightSuper"),
    (57451, "rightHyper"),
    (57452, "rightMeta"),
    (57453, "isoLevel3Shift"),
    (57454, "isoLevel5Shift"),
];

/// The canonical base names [`key_names`](super::key_names) lists (the
/// keys `encodeKeys` can send in every mode).
pub const CANONICAL: &[&str] = &[
    "enter",
    "tab",
    "esc",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageUp",
    "pageDown",
    "up",
    "down",
    "left",
    "right",
    "space",
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "f10",
    "f11",
    "f12",
    "kp0",
    "kp1",
    "kp2",
    "kp3",
    "kp4",
    "kp5",
    "kp6",
    "kp7",
    "kp8",
    "kp9",
    "kpEnter",
    "kpPlus",
    "kpMinus",
    "kpMultiply",
    "kpDivide",
    "kpDecimal",
    "lt",
    "gt",
];

/// Looks up a base key name (already known not to be a single character).
pub fn lookup_base(name: &str) -> Option<Base> {
    let norm: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    let base = match norm.as_str() {
        "enter" | "return" | "cr" => Base::Enter,
        "tab" => Base::Tab,
        "esc" | "escape" => Base::Esc,
        "backspace" | "bs" => Base::Backspace,
        "delete" | "del" => Base::Delete,
        "insert" | "ins" => Base::Insert,
        "home" => Base::Home,
        "end" => Base::End,
        "pageup" | "pgup" | "prior" => Base::PageUp,
        "pagedown" | "pgdn" | "pgdown" | "next" => Base::PageDown,
        "up" | "arrowup" => Base::Up,
        "down" | "arrowdown" => Base::Down,
        "left" | "arrowleft" => Base::Left,
        "right" | "arrowright" => Base::Right,
        "space" | "spacebar" => Base::Char(' '),
        "lt" => Base::Char('<'),
        "gt" => Base::Char('>'),
        "kpplus" | "kpadd" => Base::Keypad(b'+', b'k'),
        "kpminus" | "kpsubtract" => Base::Keypad(b'-', b'm'),
        "kpmultiply" | "kpstar" => Base::Keypad(b'*', b'j'),
        "kpdivide" | "kpslash" => Base::Keypad(b'/', b'o'),
        "kpdecimal" | "kpperiod" | "kpdot" => Base::Keypad(b'.', b'n'),
        "kpenter" => Base::Keypad(b'\r', b'M'),
        other => {
            if let Some(n) = other.strip_prefix("kp") {
                if let [d @ b'0'..=b'9'] = n.as_bytes() {
                    return Some(Base::Keypad(*d, b'p' + (d - b'0')));
                }
            }
            if let Some(&(code, _)) = KITTY_ONLY
                .iter()
                .find(|(_, n)| n.eq_ignore_ascii_case(other))
            {
                return Some(Base::Other(code));
            }
            let n: u8 = other.strip_prefix('f')?.parse().ok()?;
            if !(1..=35).contains(&n) || other.starts_with("f0") {
                return None;
            }
            Base::F(n)
        }
    };
    Some(base)
}

/// Why a key name was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// Not a key name at all (no known modifier, unknown base).
    Unknown,
    /// Looks like a key (a known modifier, or a known base) but cannot be
    /// sent: an unknown base after a modifier, or a combination without an
    /// encoding.
    Invalid(String),
}

/// Parses the modifier word before a `+`, case-insensitively.
fn modifier_word(word: &str) -> Option<u8> {
    match word.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "ctl" => Some(CTRL),
        "alt" | "meta" | "option" | "opt" => Some(ALT),
        "shift" => Some(SHIFT),
        _ => None,
    }
}

/// Words that are plausibly meant as modifiers (so the error says so).
fn modifier_like(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "super" | "hyper" | "cmd" | "command" | "win" | "mod" | "fn"
    )
}

/// Splits `name` into modifier bits and the base key name.
pub fn split_modifiers(name: &str) -> Result<(u8, &str), KeyError> {
    let mut mods = 0u8;
    let mut rest = name;
    let mut saw_modifier = false;
    loop {
        // Emacs/vim style: `C-x`, `M-x`, `S-tab`. Upper case only, so text
        // such as `<a-z>` is not mistaken for a key in tool input.
        let b = rest.as_bytes();
        if b.len() > 2 && b[1] == b'-' {
            let bit = match b[0] {
                b'C' => Some(CTRL),
                b'M' => Some(ALT),
                b'S' => Some(SHIFT),
                _ => None,
            };
            if let Some(bit) = bit {
                mods |= bit;
                rest = &rest[2..];
                saw_modifier = true;
                continue;
            }
        }
        // `word+rest`, where rest is non-empty (so `ctrl++` is ctrl and `+`).
        match rest.find('+') {
            Some(i) if i > 0 && i + 1 < rest.len() => {
                let word = &rest[..i];
                match modifier_word(word) {
                    Some(bit) => {
                        mods |= bit;
                        rest = &rest[i + 1..];
                        saw_modifier = true;
                    }
                    // `ctrl+hyper+x` or `hyper+x`: clearly meant as a key.
                    None if saw_modifier || modifier_like(word) => {
                        return Err(KeyError::Invalid(format!("unknown modifier \"{word}\"")));
                    }
                    None => return Err(KeyError::Unknown),
                }
            }
            _ => return Ok((mods, rest)),
        }
    }
}

/// Parses a key name into a key (not normalized: `A` stays a capital).
pub fn parse_name(name: &str) -> Result<Key, KeyError> {
    if name.is_empty() {
        return Err(KeyError::Unknown);
    }
    let (mods, base_name) = split_modifiers(name)?;
    let mut chars = base_name.chars();
    let base = match (chars.next(), chars.next()) {
        (Some(c), None) => Base::Char(c),
        _ => match lookup_base(base_name) {
            Some(base) => base,
            None if mods != 0 => {
                return Err(KeyError::Invalid(format!("unknown key \"{base_name}\"")));
            }
            None => return Err(KeyError::Unknown),
        },
    };
    Ok(Key { base, mods })
}

/// The names of the modifier bits, `ctrl+alt+shift` order.
pub fn modifier_names(mods: u8) -> String {
    let mut parts = Vec::new();
    if mods & CTRL != 0 {
        parts.push("ctrl");
    }
    if mods & ALT != 0 {
        parts.push("alt");
    }
    if mods & SHIFT != 0 {
        parts.push("shift");
    }
    parts.join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> String {
        parse_name(name).unwrap().id()
    }

    #[test]
    fn ids_are_canonical_spellings() {
        assert_eq!(id("return"), "enter");
        assert_eq!(id("shift+ctrl+Left"), "ctrl+shift+left");
        assert_eq!(id("M-x"), "alt+x");
        assert_eq!(id("PgDn"), "pageDown");
        assert_eq!(id(" "), "space");
        assert_eq!(id("<"), "lt");
        assert_eq!(id("alt+>"), "alt+gt");
        assert_eq!(id("shift+a"), "A");
        assert_eq!(id("A"), "A");
        assert_eq!(id("alt+A"), "alt+shift+a");
        assert_eq!(id("ctrl+shift+A"), "ctrl+shift+a");
        assert_eq!(id("ctrl+C"), "ctrl+c");
        assert_eq!(id("CTRL+ALT+X"), "ctrl+alt+x");
        assert_eq!(id("F5"), "f5");
        assert_eq!(id("kp_enter"), "kpEnter");
        assert_eq!(id("kp7"), "kp7");
        assert_eq!(id("CapsLock"), "capsLock");
        assert_eq!(id("f35"), "f35");
        assert_eq!(id("é"), "é");
        assert_eq!(id("ctrl++"), "ctrl++");
    }

    #[test]
    fn every_canonical_base_name_is_its_own_id() {
        for name in CANONICAL {
            assert_eq!(id(name), *name);
        }
        for (_, name) in KITTY_ONLY {
            assert_eq!(id(name), *name);
        }
    }

    #[test]
    fn bad_names() {
        assert_eq!(parse_name(""), Err(KeyError::Unknown));
        assert_eq!(parse_name("nope"), Err(KeyError::Unknown));
        assert!(matches!(parse_name("ctrl+nope"), Err(KeyError::Invalid(_))));
        assert!(matches!(parse_name("hyper+x"), Err(KeyError::Invalid(_))));
        assert_eq!(parse_name("f36"), Err(KeyError::Unknown));
        assert_eq!(parse_name("f0"), Err(KeyError::Unknown));
    }
}
