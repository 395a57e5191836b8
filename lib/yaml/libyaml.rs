//! A safe event stream over libyaml's parser (`unsafe-libyaml`, the line-by-line Rust
//! translation of the C libyaml that PyYAML's `CSafeLoader` runs). Using the same parser as
//! Hermes means the same documents parse, with the same error messages and positions.
//!
//! All `unsafe` of the YAML loader lives in this file: the parser is created, fed one borrowed
//! byte slice, asked for events, and deleted exactly once.

use std::ffi::CStr;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_sys;

/// A position in the input: byte index, 0-based line and column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub index: usize,
    pub line: usize,
    pub column: usize,
}

impl Mark {
    fn from_sys(mark: unsafe_sys::yaml_mark_t) -> Mark {
        Mark {
            index: mark.index as usize,
            line: mark.line as usize,
            column: mark.column as usize,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EventData {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias {
        anchor: String,
    },
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        value: String,
        plain_implicit: bool,
        style: ScalarStyle,
    },
    SequenceStart {
        anchor: Option<String>,
        tag: Option<String>,
        /// Written `[a, b]` rather than as a block of `- a` lines.
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        tag: Option<String>,
        /// Written `{a: 1}` rather than as a block of `a: 1` lines.
        flow: bool,
    },
    MappingEnd,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    pub data: EventData,
    pub start: Mark,
    pub end: Mark,
}

/// libyaml's description of why it stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub problem: String,
    pub problem_mark: Mark,
    pub context: Option<String>,
    pub context_mark: Mark,
}

/// A libyaml parser over a borrowed input.
pub(crate) struct Parser<'input> {
    parser: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
    finished: bool,
    _input: PhantomData<&'input [u8]>,
}

impl<'input> Parser<'input> {
    pub fn new(input: &'input [u8]) -> Parser<'input> {
        let mut parser = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        // SAFETY: `yaml_parser_initialize` fully initialises the struct it is given (it fails
        // only on allocation failure, which aborts in Rust). The input slice outlives the
        // parser thanks to the `'input` lifetime, as `yaml_parser_set_input_string` requires.
        unsafe {
            let raw = parser.as_mut_ptr();
            let initialized = unsafe_sys::yaml_parser_initialize(raw).ok;
            assert!(
                initialized,
                "libyaml parser initialisation failed (out of memory)"
            );
            unsafe_sys::yaml_parser_set_encoding(raw, unsafe_sys::YAML_UTF8_ENCODING);
            unsafe_sys::yaml_parser_set_input_string(raw, input.as_ptr(), input.len() as u64);
        }
        Parser {
            parser,
            finished: false,
            _input: PhantomData,
        }
    }

    /// The next event; after the stream end (or an error) it keeps returning the stream end.
    pub fn next_event(&mut self) -> Result<Event, ParseError> {
        if self.finished {
            return Ok(Event {
                data: EventData::StreamEnd,
                start: Mark::default(),
                end: Mark::default(),
            });
        }
        let raw = self.parser.as_mut_ptr();
        let mut event = MaybeUninit::<unsafe_sys::yaml_event_t>::uninit();
        // SAFETY: the parser was initialised in `new`; `yaml_parser_parse` fills `event` when
        // it succeeds, and on failure sets the parser's error fields, which stay valid (static
        // strings) until the parser is deleted.
        unsafe {
            if !unsafe_sys::yaml_parser_parse(raw, event.as_mut_ptr()).ok {
                self.finished = true;
                let parser = &*raw;
                return Err(ParseError {
                    problem: c_text(parser.problem)
                        .unwrap_or_else(|| "unknown YAML parser error".to_string()),
                    problem_mark: Mark::from_sys(parser.problem_mark),
                    context: c_text(parser.context),
                    context_mark: Mark::from_sys(parser.context_mark),
                });
            }
            let event_ptr = event.as_mut_ptr();
            let converted = convert(&*event_ptr);
            unsafe_sys::yaml_event_delete(event_ptr);
            if converted.data == EventData::StreamEnd {
                self.finished = true;
            }
            Ok(converted)
        }
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: the parser was initialised in `new` and is deleted only here.
        unsafe { unsafe_sys::yaml_parser_delete(self.parser.as_mut_ptr()) }
    }
}

/// Copies one event out of libyaml's memory.
///
/// SAFETY: `event` must be an event `yaml_parser_parse` just produced; the union field read is
/// the one its `type_` names.
unsafe fn convert(event: &unsafe_sys::yaml_event_t) -> Event {
    let data = unsafe {
        match event.type_ {
            unsafe_sys::YAML_STREAM_START_EVENT => EventData::StreamStart,
            unsafe_sys::YAML_DOCUMENT_START_EVENT => EventData::DocumentStart,
            unsafe_sys::YAML_DOCUMENT_END_EVENT => EventData::DocumentEnd,
            unsafe_sys::YAML_ALIAS_EVENT => EventData::Alias {
                anchor: c_text(event.data.alias.anchor.cast()).unwrap_or_default(),
            },
            unsafe_sys::YAML_SCALAR_EVENT => {
                let scalar = event.data.scalar;
                let bytes = if scalar.value.is_null() {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(scalar.value, scalar.length as usize)
                };
                EventData::Scalar {
                    anchor: c_text(scalar.anchor.cast()),
                    tag: c_text(scalar.tag.cast()),
                    value: String::from_utf8_lossy(bytes).into_owned(),
                    plain_implicit: scalar.plain_implicit,
                    style: match scalar.style {
                        unsafe_sys::YAML_SINGLE_QUOTED_SCALAR_STYLE => ScalarStyle::SingleQuoted,
                        unsafe_sys::YAML_DOUBLE_QUOTED_SCALAR_STYLE => ScalarStyle::DoubleQuoted,
                        unsafe_sys::YAML_LITERAL_SCALAR_STYLE => ScalarStyle::Literal,
                        unsafe_sys::YAML_FOLDED_SCALAR_STYLE => ScalarStyle::Folded,
                        _ => ScalarStyle::Plain,
                    },
                }
            }
            unsafe_sys::YAML_SEQUENCE_START_EVENT => EventData::SequenceStart {
                anchor: c_text(event.data.sequence_start.anchor.cast()),
                tag: c_text(event.data.sequence_start.tag.cast()),
                flow: event.data.sequence_start.style == unsafe_sys::YAML_FLOW_SEQUENCE_STYLE,
            },
            unsafe_sys::YAML_SEQUENCE_END_EVENT => EventData::SequenceEnd,
            unsafe_sys::YAML_MAPPING_START_EVENT => EventData::MappingStart {
                anchor: c_text(event.data.mapping_start.anchor.cast()),
                tag: c_text(event.data.mapping_start.tag.cast()),
                flow: event.data.mapping_start.style == unsafe_sys::YAML_FLOW_MAPPING_STYLE,
            },
            unsafe_sys::YAML_MAPPING_END_EVENT => EventData::MappingEnd,
            _ => EventData::StreamEnd,
        }
    };
    Event {
        data,
        start: Mark::from_sys(event.start_mark),
        end: Mark::from_sys(event.end_mark),
    }
}

/// A NUL-terminated C string as text; `None` for a null pointer.
///
/// SAFETY: `ptr` must be null or point at a NUL-terminated string.
unsafe fn c_text(ptr: *const std::ffi::c_char) -> Option<String> {
    if ptr.is_null() {
        None
    } else {
        Some(
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}
