//! Test helpers for the skills area.
