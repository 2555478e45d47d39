//! Bounding the content a tool sends back to the model.

/// A default for the registry's `maxContentChars`: about 8k tokens, a
/// screenful many times over, small enough that a flood of pipe output does
/// not crowd the model's context.
pub const DEFAULT_MAX_CONTENT_CHARS: usize = 32_000;

/// Shortens `text` to at most `max_chars` characters by keeping its head and
/// tail around a marker line such as `[... 12345 characters omitted ...]`;
/// returns the text and whether anything was left out.
///
/// The beginning of a command's output usually says what it is doing and the
/// end how it finished, so both are kept, in equal parts. Cuts move to a
/// line boundary when one is near, so the marker sits on its own line.
/// Lengths count Unicode scalar values (`char`s). When `max_chars` is too
/// small to hold the marker, the head alone is kept.
pub fn truncate_middle(text: &str, max_chars: usize) -> (String, bool) {
    let total = text.chars().count();
    if total <= max_chars {
        return (text.to_string(), false);
    }
    // The marker's digits are at most those of `total`, so this bounds it.
    let marker_len = marker(total).chars().count() + 2;
    if max_chars < marker_len + 2 {
        return (text.chars().take(max_chars).collect(), true);
    }
    let budget = max_chars - marker_len;
    let head_chars = budget.div_ceil(2);
    let tail_chars = budget - head_chars;

    let head_end = byte_offset(text, head_chars);
    let tail_start = byte_offset(text, total - tail_chars);
    // Snap to line boundaries within the last (first) fifth of each part.
    let head = &text[..head_end];
    let head = match head.rfind('\n') {
        Some(i) if head[i..].chars().count() <= head_chars / 5 + 1 => &head[..=i],
        _ => head,
    };
    let tail = &text[tail_start..];
    let tail = match tail.find('\n') {
        Some(i) if tail[..i].chars().count() < tail_chars / 5 + 1 => &tail[i + 1..],
        _ => tail,
    };
    let omitted = total - head.chars().count() - tail.chars().count();
    let before = if head.ends_with('\n') { "" } else { "\n" };
    (format!("{head}{before}{}\n{tail}", marker(omitted)), true)
}

fn marker(omitted: usize) -> String {
    format!("[... {omitted} characters omitted ...]")
}

/// The byte offset of the `n`th char (or the end).
fn byte_offset(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(truncate_middle("hello", 5), ("hello".to_string(), false));
        assert_eq!(truncate_middle("", 0), (String::new(), false));
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_counts_the_rest() {
        let text: String = ('a'..='z').cycle().take(1000).collect();
        let (out, truncated) = truncate_middle(&text, 100);
        assert!(truncated);
        assert!(out.chars().count() <= 100, "{}", out.len());
        let (head, rest) = out.split_once('\n').unwrap();
        let (marker_line, tail) = rest.split_once('\n').unwrap();
        assert!(text.starts_with(head) && text.ends_with(tail));
        let omitted = 1000 - head.len() - tail.len();
        assert_eq!(
            marker_line,
            format!("[... {omitted} characters omitted ...]")
        );
        assert!(head.len().abs_diff(tail.len()) <= 1);
    }

    #[test]
    fn cuts_snap_to_lines() {
        let text: String = (0..200).map(|i| format!("line {i:03}\n")).collect();
        let (out, truncated) = truncate_middle(&text, 300);
        assert!(truncated && out.chars().count() <= 300);
        for line in out.lines() {
            assert!(
                line.starts_with("line ") || line.starts_with("[... "),
                "{line:?}"
            );
        }
        assert!(out.starts_with("line 000\n") && out.ends_with("line 199\n"));
        let kept = out.lines().filter(|l| l.starts_with("line")).count();
        let omitted = text.len() - kept * 9;
        assert!(
            out.contains(&format!("[... {omitted} characters omitted ...]")),
            "{out}"
        );
    }

    #[test]
    fn counts_chars_not_bytes() {
        let text = "é".repeat(500);
        let (out, truncated) = truncate_middle(&text, 80);
        assert!(truncated && out.chars().count() <= 80);
        assert!(out.starts_with("éé") && out.ends_with("éé"));
    }

    #[test]
    fn tiny_limits_keep_the_head() {
        assert_eq!(truncate_middle("abcdefghij", 4), ("abcd".to_string(), true));
        assert_eq!(truncate_middle("abcdefghij", 0), (String::new(), true));
    }
}
