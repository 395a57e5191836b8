//! What `read_file` has already shown this session, so that re-reading an unchanged region
//! costs a short note instead of the whole page again, and a model stuck in a re-read loop is
//! stopped.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

/// One file region as asked for: resolved path, first line, line limit.
pub type Region = (PathBuf, u64, u64);

/// The file's state when it was read: a write changes one or the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub modified: Option<SystemTime>,
    pub size: u64,
}

#[derive(Debug, Default)]
pub struct ReadLog {
    seen: HashMap<Region, (Stamp, u32)>,
}

impl ReadLog {
    /// Records a read of `region` as it is now; answers how many reads in a row (this one
    /// included) found it unchanged.
    pub fn note(&mut self, region: Region, stamp: Stamp) -> u32 {
        let entry = self.seen.entry(region).or_insert((stamp, 0));
        if entry.0 != stamp {
            *entry = (stamp, 0);
        }
        entry.1 += 1;
        entry.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_reset_when_the_file_changes() {
        let mut log = ReadLog::default();
        let region = (PathBuf::from("/a"), 1, 500);
        let s1 = Stamp {
            modified: None,
            size: 3,
        };
        let s2 = Stamp {
            modified: None,
            size: 4,
        };
        assert_eq!(log.note(region.clone(), s1), 1);
        assert_eq!(log.note(region.clone(), s1), 2);
        assert_eq!(log.note(region.clone(), s2), 1);
        assert_eq!(log.note((PathBuf::from("/a"), 2, 500), s2), 1);
        assert_eq!(log.note(region, s2), 2);
    }
}
