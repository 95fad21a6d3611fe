//! `text`: the output format and verbosity.
//!
//! `text` and each member may be null, which means the default `{format: {type: "text"},
//! verbosity: "medium"}`. `format` is `{type: "text"}` or `{type: "json_schema", schema}`, the
//! Agents API form: it has no `name`, `strict` or other Responses wrapper members, which are
//! therefore unknown parameters. The schema is kept exactly as sent. A schema with an explicit
//! non-object root is a conflict checked after the whole body ([`check_text_schema_root`]).

use serde_json::Value;

use crate::declarations::{TextConfig, TextFormat, Verbosity};
use crate::error::ValidationError;
use crate::error_messages::{self, kind};
use crate::object_reader::ObjectReader;
use crate::scalar;
use crate::schema_root::non_object_root_type;

const VERBOSITIES: &[(&str, Verbosity)] = &[
    ("low", Verbosity::Low),
    ("medium", Verbosity::Medium),
    ("high", Verbosity::High),
];

/// Parses a `text` member at `path`; null is the default.
pub fn parse_text(value: &Value, path: &str) -> Result<TextConfig, ValidationError> {
    let mut text = TextConfig::default();
    if value.is_null() {
        return Ok(text);
    }
    ObjectReader::new(value, path, kind::OBJECT)?.read(
        &["format", "verbosity"],
        |key, value, path| {
            match key {
                "format" if !value.is_null() => text.format = parse_format(value, path)?,
                "verbosity" => {
                    text.verbosity = scalar::nullable_choice(value, path, VERBOSITIES)?
                        .unwrap_or(Verbosity::Medium)
                }
                _ => {}
            }
            Ok(())
        },
    )?;
    Ok(text)
}

fn parse_format(value: &Value, path: &str) -> Result<TextFormat, ValidationError> {
    let obj = ObjectReader::new(value, path, kind::OBJECT)?;
    if obj.tag(&["text", "json_schema"])? == "text" {
        obj.read_tag_only()?;
        return Ok(TextFormat::Text);
    }
    let mut schema = None;
    obj.read(&["type", "schema"], |key, value, path| {
        if key == "schema" {
            schema = Some(Value::Object(scalar::free_object(value, path)?));
        }
        Ok(())
    })?;
    Ok(TextFormat::JsonSchema {
        schema: obj.required(schema, "schema")?,
    })
}

/// The schema-root conflict for `text` at `text_path` (`text` on Agent bodies, `agent.text` on
/// Session create); the message names the schema's path.
pub fn check_text_schema_root(text: &TextConfig, text_path: &str) -> Result<(), ValidationError> {
    match &text.format {
        TextFormat::JsonSchema { schema } => match non_object_root_type(schema) {
            Some(root) => Err(error_messages::text_schema_root(
                &format!("{text_path}.format.schema"),
                root,
            )),
            None => Ok(()),
        },
        TextFormat::Text => Ok(()),
    }
}
