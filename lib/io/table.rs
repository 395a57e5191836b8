//! Text tables for people: columns measured in terminal cells (a CJK character or an emoji
//! takes two, a combining mark none) and counts with thousands separators. Tables that must
//! match Python Hermes byte for byte (the curator's reports) keep Python's padding instead.

/// The cells `s` takes on a terminal.
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// `s` padded with spaces to `cells` (left-aligned).
pub fn pad(s: &str, cells: usize) -> String {
    format!("{s}{}", " ".repeat(cells.saturating_sub(width(s))))
}

/// `s` padded on the left to `cells` (right-aligned, for numbers).
pub fn pad_left(s: &str, cells: usize) -> String {
    format!("{}{s}", " ".repeat(cells.saturating_sub(width(s))))
}

/// `1234567` → `1,234,567` (the one formatter, shared with the texts that mirror Python's
/// `{n:,}`).
pub use crate::pytext::thousands;

/// Rows of cells laid out in columns two spaces apart, the last column unpadded;
/// `right[i]` right-aligns column `i`.
pub fn layout(rows: &[Vec<String>], right: &[bool]) -> Vec<String> {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    rows.iter()
        .map(|row| {
            let last = row.len().saturating_sub(1);
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, cell)| match (right.get(i), i == last) {
                    (Some(true), _) => pad_left(cell, widths[i]),
                    (_, true) => cell.clone(),
                    _ => pad(cell, widths[i]),
                })
                .collect();
            cells.join("  ")
        })
        .collect()
}

/// East Asian Wide and Fullwidth characters and emoji take two cells; combining marks,
/// zero-width characters and variation selectors none. The ranges of Unicode's
/// EastAsianWidth.txt that occur in text, without the rare ones.
fn char_width(c: char) -> usize {
    let u = c as u32;
    match u {
        0 => 0,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0E31
        | 0x0E34..=0x0E3A
        | 0x0E47..=0x0E4E
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x200B..=0x200F
        | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F
        | 0xE0100..=0xE01EF => 0,
        0x1100..=0x115F
        | 0x231A..=0x231B
        | 0x2329..=0x232A
        | 0x23E9..=0x23EC
        | 0x23F0
        | 0x23F3
        | 0x25FD..=0x25FE
        | 0x2614..=0x2615
        | 0x2648..=0x2653
        | 0x267F
        | 0x2693
        | 0x26A1
        | 0x26AA..=0x26AB
        | 0x26BD..=0x26BE
        | 0x26C4..=0x26C5
        | 0x26CE
        | 0x26D4
        | 0x26EA
        | 0x26F2..=0x26F5
        | 0x26FA
        | 0x26FD
        | 0x2705
        | 0x270A..=0x270B
        | 0x2728
        | 0x274C
        | 0x274E
        | 0x2753..=0x2755
        | 0x2757
        | 0x2795..=0x2797
        | 0x27B0
        | 0x27BF
        | 0x2B1B..=0x2B1C
        | 0x2B50
        | 0x2B55
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE10..=0xFE19
        | 0xFE30..=0xFE6F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F004
        | 0x1F0CF
        | 0x1F18E
        | 0x1F191..=0x1F19A
        | 0x1F200..=0x1F251
        | 0x1F300..=0x1F64F
        | 0x1F680..=0x1F6FF
        | 0x1F7E0..=0x1F7EB
        | 0x1F90C..=0x1F9FF
        | 0x1FA70..=0x1FAFF
        | 0x20000..=0x3FFFD => 2,
        _ if c.is_control() => 0,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_terminal_cells() {
        assert_eq!(width("git"), 3);
        assert_eq!(width("日本語"), 6);
        assert_eq!(width("한국어"), 6);
        assert_eq!(width("ｆｕｌｌ"), 8);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("🚀x"), 3);
        assert_eq!(width("café"), 4);
        // A control character moves the cursor or nothing: no cell of its own.
        assert_eq!(width("a\u{7}b\u{1b}"), 2);
        assert_eq!(width("\u{0}"), 0);
    }

    #[test]
    fn padding_counts_cells_not_chars() {
        assert_eq!(pad("日本", 6), "日本  ");
        assert_eq!(pad_left("日本", 6), "  日本");
        assert_eq!(pad("toolong", 3), "toolong");
        assert_eq!(pad_left("7", 3), "  7");
    }

    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(thousands(0u32), "0");
        assert_eq!(thousands(999u32), "999");
        assert_eq!(thousands(1000u32), "1,000");
        assert_eq!(thousands(1_234_567u64), "1,234,567");
        assert_eq!(thousands(-12_345i64), "-12,345");
    }

    #[test]
    fn columns_line_up_with_wide_text() {
        let rows = vec![
            vec!["NAME".into(), "USES".into(), "DESCRIPTION".into()],
            vec!["数据分析".into(), "1,204".into(), "Charts".into()],
            vec!["git".into(), "7".into(), "Git help.".into()],
        ];
        assert_eq!(
            layout(&rows, &[false, true]),
            [
                "NAME       USES  DESCRIPTION",
                "数据分析  1,204  Charts",
                "git           7  Git help.",
            ]
        );
    }
}
