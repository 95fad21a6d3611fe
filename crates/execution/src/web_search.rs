//! `{"type": "web_search"}`: the search control and its settings, saved as resource data.
//!
//! Every pinned mode is saved (omitted or null → `live`); omitted or null `context_size` →
//! `medium`; omitted or null `allowed_domains` and `location` stay null while `[]` stays `[]`;
//! a supplied location, `{}` included, always carries `city`, `country`, `region` and
//! `timezone`, null where omitted. Whether a harness can run these values is decided at Session
//! admission against its declaration, never here. A second `web_search` in one list is a
//! whole-list rule (see `tools::check_tool_conflicts`).

use crate::declarations::{ContextSize, WebSearchLocation, WebSearchMode, WebSearchTool};
use crate::error::ValidationError;
use crate::error_messages::kind;
use crate::object_reader::ObjectReader;
use crate::scalar;

const MEMBERS: &[&str] = &[
    "type",
    "mode",
    "context_size",
    "allowed_domains",
    "location",
];
const LOCATION_MEMBERS: &[&str] = &["city", "country", "region", "timezone"];

const MODES: &[(&str, WebSearchMode)] = &[
    ("disabled", WebSearchMode::Disabled),
    ("cached", WebSearchMode::Cached),
    ("live", WebSearchMode::Live),
];
const CONTEXT_SIZES: &[(&str, ContextSize)] = &[
    ("low", ContextSize::Low),
    ("medium", ContextSize::Medium),
    ("high", ContextSize::High),
];

pub fn parse(obj: &ObjectReader) -> Result<WebSearchTool, ValidationError> {
    let mut tool = WebSearchTool {
        mode: WebSearchMode::Live,
        context_size: ContextSize::Medium,
        allowed_domains: None,
        location: None,
    };
    obj.read(MEMBERS, |key, value, path| {
        match key {
            "mode" => {
                tool.mode =
                    scalar::nullable_choice(value, path, MODES)?.unwrap_or(WebSearchMode::Live)
            }
            "context_size" => {
                tool.context_size = scalar::nullable_choice(value, path, CONTEXT_SIZES)?
                    .unwrap_or(ContextSize::Medium)
            }
            "allowed_domains" => tool.allowed_domains = scalar::nullable_string_array(value, path)?,
            "location" if !value.is_null() => {
                tool.location = Some(location(&ObjectReader::new(value, path, kind::OBJECT)?)?)
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(tool)
}

fn location(obj: &ObjectReader) -> Result<WebSearchLocation, ValidationError> {
    let mut location = WebSearchLocation::default();
    obj.read(LOCATION_MEMBERS, |key, value, path| {
        let text = scalar::nullable_string(value, path)?.map(str::to_string);
        match key {
            "city" => location.city = text,
            "country" => location.country = text,
            "region" => location.region = text,
            _ => location.timezone = text,
        }
        Ok(())
    })?;
    Ok(location)
}
