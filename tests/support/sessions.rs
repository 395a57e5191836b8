//! Test helpers for the sessions area.
