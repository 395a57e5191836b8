//! Line boundaries of a text, found once, so that a byte offset maps to its line by binary
//! search and every line is a slice without its `\n` (or `\r\n`).

/// The start offset of every line of one text.
#[derive(Debug, Clone)]
pub struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    pub fn new(text: &str) -> Lines {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        super::positions::of(text.as_bytes(), b'\n').for_each(|i| starts.push(i + 1));
        // A final newline ends the last line; it does not start an empty one.
        if starts.len() > 1 && starts.last() == Some(&text.len()) {
            starts.pop();
        }
        Lines {
            starts,
            len: text.len(),
        }
    }

    /// Number of lines (an empty text has one, empty, line).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    pub fn start(&self, line: usize) -> usize {
        self.starts[line]
    }

    /// The start of the line after `line`, if there is one.
    pub fn next_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line + 1).copied()
    }

    /// Line `line` of `text` without its line ending.
    pub fn text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let start = self.starts[line];
        let end = self.starts.get(line + 1).map_or(self.len, |&next| next - 1);
        let slice = &text[start..end.max(start)];
        // The last line keeps its `\n` in the slice when the text ends with one.
        let slice = slice.strip_suffix('\n').unwrap_or(slice);
        slice.strip_suffix('\r').unwrap_or(slice)
    }

    /// Every line, in order.
    pub fn iter<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        (0..self.count()).map(move |i| self.text(text, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_offsets() {
        let text = "a\r\nbc\n\nd";
        let lines = Lines::new(text);
        assert_eq!(lines.count(), 4);
        assert_eq!(
            lines.iter(text).collect::<Vec<_>>(),
            vec!["a", "bc", "", "d"]
        );
        assert_eq!(lines.line_of(0), 0);
        assert_eq!(lines.line_of(3), 1);
        assert_eq!(lines.line_of(7), 3);
        let trailing = "x\n";
        assert_eq!(Lines::new(trailing).count(), 1);
        assert_eq!(Lines::new(trailing).text(trailing, 0), "x");
        assert_eq!(Lines::new("").count(), 1);
        assert_eq!(Lines::new("").text("", 0), "");
    }
}
