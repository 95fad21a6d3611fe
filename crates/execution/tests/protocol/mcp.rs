//! `{"type": "mcp"}`: tool members, HTTP and stdio transports, saved and inline forms.

use crate::common::{assert_each_form, assert_each_form_ok, assert_error, create, create_ok, json};
use switchboard_execution::{ConnectionOrigin, McpTransport, Tool, parse_inline_agent};

fn http(extra: &str) -> String {
    format!(
        r#""tools":[{{"type":"mcp","server_label":"tickets","transport":{{"type":"http","server_url":"https://mcp.example.com/mcp"}}{extra}}}]"#
    )
}

fn http_transport(transport: &str) -> String {
    format!(
        r#""tools":[{{"type":"mcp","server_label":"tickets","transport":{{"type":"http","server_url":"https://mcp.example.com/mcp",{transport}}}}}]"#
    )
}

fn stdio(transport: &str, extra: &str) -> String {
    format!(
        r#""tools":[{{"type":"mcp","server_label":"files","transport":{{"type":"stdio","command":"npx","cwd":"/w"{transport}}}{extra}}}]"#
    )
}

fn inline(fields: &str) -> Result<(), switchboard_execution::ValidationError> {
    parse_inline_agent(&json(&format!(r#"{{"model":"m",{fields}}}"#)), "agent").map(drop)
}

fn saved_mcp(fields: &str) -> switchboard_execution::McpTool {
    match create_ok(&format!(r#"{{"model":"m",{fields}}}"#))
        .tools
        .remove(0)
    {
        Tool::Mcp(m) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn required_members_and_labels() {
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x"}]"#,
        Some("{p}tools[0].transport"),
        "Missing required parameter: '{p}tools[0].transport'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","transport":{"type":"http","server_url":"https://a.example"}}]"#,
        Some("{p}tools[0].server_label"),
        "Missing required parameter: '{p}tools[0].server_label'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"","transport":{"type":"http","server_url":"https://a.example"}}]"#,
        Some("{p}tools[0].server_label"),
        "MCP tools require type=mcp and a nonempty server_label.",
    );
    // Repeated labels are saved: distinct labels are a Session admission rule.
    assert_each_form_ok(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"http","server_url":"https://a.example"}},{"type":"mcp","server_label":"x","transport":{"type":"http","server_url":"https://b.example"}}]"#,
    );
}

#[test]
fn transport_union() {
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"ws"}}]"#,
        Some("{p}tools[0].transport.type"),
        "Invalid value: 'ws'. Supported values are: 'http' and 'stdio'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"server_url":"https://a.example"}}]"#,
        Some("{p}tools[0].transport.type"),
        "Missing required parameter: '{p}tools[0].transport.type'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":"https://a.example"}]"#,
        Some("{p}tools[0].transport"),
        "Invalid type for '{p}tools[0].transport': expected an object, but got a string instead.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"http"}}]"#,
        Some("{p}tools[0].transport.server_url"),
        "Missing required parameter: '{p}tools[0].transport.server_url'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"stdio","command":"run"}}]"#,
        Some("{p}tools[0].transport.cwd"),
        "Missing required parameter: '{p}tools[0].transport.cwd'.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"stdio","cwd":"/"}}]"#,
        Some("{p}tools[0].transport.command"),
        "Missing required parameter: '{p}tools[0].transport.command'.",
    );
}

#[test]
fn server_urls() {
    for url in [
        "https://mcp.example.com/mcp",
        "http://10.0.0.1:8080/mcp",
        "https://mcp.example.com/mcp?tenant=a",
    ] {
        assert_each_form_ok(&format!(
            r#""tools":[{{"type":"mcp","server_label":"x","transport":{{"type":"http","server_url":"{url}"}}}}]"#
        ));
    }
    for url in [
        "",
        "mcp.example.com",
        "/mcp",
        "ftp://mcp.example.com",
        "https://user:pw@mcp.example.com/",
        "https://user@mcp.example.com/",
        "https://mcp.example.com/#frag",
        "https://mcp.example.com/#",
        " https://mcp.example.com",
        "https:mcp.example.com",
    ] {
        assert_each_form(
            &format!(
                r#""tools":[{{"type":"mcp","server_label":"x","transport":{{"type":"http","server_url":"{url}"}}}}]"#
            ),
            Some("{p}tools[0].transport.server_url"),
            "MCP server_url must be an absolute HTTP(S) URL without credentials or fragment.",
        );
    }
}

#[test]
fn headers() {
    assert_each_form_ok(&http_transport(
        r#""headers":{"X-Tenant":"a b","x-trace":"","Accept-Language":"en"}"#,
    ));
    assert_each_form_ok(&http_transport(r#""headers":null"#));
    assert_each_form(
        &http_transport(r#""headers":{"h":1}"#),
        Some("{p}tools[0].transport.headers.h"),
        "Invalid type for '{p}tools[0].transport.headers.h': expected a string, but got an integer instead.",
    );
    assert_each_form(
        &http_transport(r#""headers":[]"#),
        Some("{p}tools[0].transport.headers"),
        "Invalid type for '{p}tools[0].transport.headers': expected an object with string keys and string values, but got an array instead.",
    );
    for name in ["Authorization", "authorization", "AUTHORIZATION"] {
        assert_each_form(
            &http_transport(&format!(r#""headers":{{"{name}":"Bearer x"}}"#)),
            Some(&format!("{{p}}tools[0].transport.headers.{name}")),
            "MCP headers cannot include Authorization; credentials enter only through a Vault credential (credential_id).",
        );
    }
    assert_each_form(
        &http_transport(r#""headers":{"X Bad":"v"}"#),
        Some("{p}tools[0].transport.headers.X Bad"),
        "Invalid MCP header name 'X Bad': header names must be HTTP tokens.",
    );
    assert_each_form(
        &http_transport(r#""headers":{"":"v"}"#),
        Some("{p}tools[0].transport.headers."),
        "Invalid MCP header name '': header names must be HTTP tokens.",
    );
    assert_each_form(
        &http_transport(r#""headers":{"X-Trace":"a","x-trace":"b"}"#),
        Some("{p}tools[0].transport.headers.x-trace"),
        "Duplicate MCP header 'x-trace': header names must be unique ignoring case.",
    );
    for value in [" lead", "trail ", "a\nb", "a\rb", "é"] {
        assert_each_form(
            &http_transport(&format!(
                r#""headers":{{"X-V":{}}}"#,
                serde_json::json!(value)
            )),
            Some("{p}tools[0].transport.headers.X-V"),
            "Invalid value for MCP header 'X-V': use visible ASCII characters, with spaces or tabs only between them.",
        );
    }
    // A header name that cannot be echoed leaves the message and a null param.
    assert_each_form(
        &http_transport(r#""headers":{"a\tb":"v"}"#),
        None,
        "Invalid MCP header name: header names must be HTTP tokens.",
    );
}

#[test]
fn headers_are_saved_in_order() {
    let tool = saved_mcp(&http_transport(r#""headers":{"X-B":"2","X-A":"1"}"#));
    let McpTransport::Http { headers, .. } = tool.transport else {
        panic!()
    };
    assert_eq!(
        serde_json::to_string(&headers).unwrap(),
        r#"{"X-B":"2","X-A":"1"}"#
    );
}

#[test]
fn inline_authorization_only_in_the_inline_form() {
    for value in ["null", r#""""#] {
        inline(&http_transport(&format!(r#""authorization":{value}"#))).unwrap();
    }
    assert_error(
        inline(&http_transport(r#""authorization":"Bearer x""#)),
        Some("agent.tools[0].transport.authorization"),
        "Inline MCP authorization is not supported; use credential_id.",
    );
    assert_error(
        inline(&http_transport(r#""authorization":5"#)),
        Some("agent.tools[0].transport.authorization"),
        "Invalid type for 'agent.tools[0].transport.authorization': expected a string, but got an integer instead.",
    );
    assert_error(
        create(&format!(
            r#"{{"model":"m",{}}}"#,
            http_transport(r#""authorization":"x""#)
        )),
        Some("tools[0].transport.authorization"),
        "Unknown parameter: 'tools[0].transport.authorization'.",
    );
    // Nothing of it is kept.
    let tools = parse_inline_agent(
        &json(&format!(
            r#"{{{}}}"#,
            http_transport(r#""authorization":"""#)
        )),
        "agent",
    )
    .unwrap()
    .tools
    .unwrap();
    assert_eq!(
        serde_json::to_value(&tools[0]).unwrap()["transport"],
        json(r#"{"type":"http","server_url":"https://mcp.example.com/mcp","headers":{}}"#)
    );
}

#[test]
fn inline_env_only_in_the_inline_form() {
    for value in ["null", "{}"] {
        inline(&stdio(&format!(r#","env":{value}"#), "")).unwrap();
    }
    assert_error(
        inline(&stdio(r#","env":{"K":"V"}"#, "")),
        Some("agent.tools[0].transport.env"),
        "Inline MCP env is not supported; declare env_vars and set the values in the Environment.",
    );
    assert_error(
        inline(&stdio(r#","env":{"K":1}"#, "")),
        Some("agent.tools[0].transport.env.K"),
        "Invalid type for 'agent.tools[0].transport.env.K': expected a string, but got an integer instead.",
    );
    assert_error(
        create(&format!(r#"{{"model":"m",{}}}"#, stdio(r#","env":{}"#, ""))),
        Some("tools[0].transport.env"),
        "Unknown parameter: 'tools[0].transport.env'.",
    );
}

#[test]
fn stdio_members() {
    assert_each_form_ok(&stdio(
        r#","args":["srv","--port","1"],"env_vars":["HOME","_TOKEN_1"]"#,
        "",
    ));
    assert_each_form_ok(&stdio(r#","args":null,"env_vars":null"#, ""));
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"stdio","command":"","cwd":"/w"}}]"#,
        Some("{p}tools[0].transport.command"),
        "Invalid '{p}tools[0].transport.command': empty string. Expected a string with minimum length 1, but got an empty string instead.",
    );
    for cwd in ["", "w", "./w", "~/w", "C:\\w"] {
        assert_each_form(
            &format!(
                r#""tools":[{{"type":"mcp","server_label":"x","transport":{{"type":"stdio","command":"npx","cwd":{}}}}}]"#,
                serde_json::json!(cwd)
            ),
            Some("{p}tools[0].transport.cwd"),
            "MCP stdio cwd must be an absolute path.",
        );
    }
    for (transport, param) in [
        (r#","args":["a\u0000b"]"#, "{p}tools[0].transport.args[0]"),
        (
            r#","env_vars":["A\u0000"]"#,
            "{p}tools[0].transport.env_vars[0]",
        ),
    ] {
        assert_each_form(
            &stdio(transport, ""),
            Some(param),
            "MCP stdio command, args, cwd and env_vars cannot contain NUL characters.",
        );
    }
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"stdio","command":"np\u0000x","cwd":"/w"}}]"#,
        Some("{p}tools[0].transport.command"),
        "MCP stdio command, args, cwd and env_vars cannot contain NUL characters.",
    );
    assert_each_form(
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"stdio","command":"npx","cwd":"/w\u0000"}}]"#,
        Some("{p}tools[0].transport.cwd"),
        "MCP stdio command, args, cwd and env_vars cannot contain NUL characters.",
    );
    for name in ["1A", "A-B", "A=B", ""] {
        assert_each_form(
            &stdio(
                &format!(r#","env_vars":["OK",{}]"#, serde_json::json!(name)),
                "",
            ),
            Some("{p}tools[0].transport.env_vars[1]"),
            &format!(
                "Invalid MCP env_vars entry '{name}': expected a variable name of letters, digits and underscores that does not start with a digit."
            ),
        );
    }
    assert_each_form(
        &stdio(r#","args":[1]"#, ""),
        Some("{p}tools[0].transport.args[0]"),
        "Invalid type for '{p}tools[0].transport.args[0]': expected a string, but got an integer instead.",
    );
    assert_each_form(
        &stdio(r#","headers":{}"#, ""),
        Some("{p}tools[0].transport.headers"),
        "Unknown parameter: '{p}tools[0].transport.headers'.",
    );
    assert_each_form(
        &http_transport(r#""cwd":"/""#),
        Some("{p}tools[0].transport.cwd"),
        "Unknown parameter: '{p}tools[0].transport.cwd'.",
    );
}

#[test]
fn connection_origin() {
    assert_each_form(
        &http(r#","connection_origin":"bogus""#),
        Some("{p}tools[0].connection_origin"),
        "Invalid value: 'bogus'. Supported values are: 'service' and 'environment'.",
    );
    assert_eq!(
        saved_mcp(&http("")).connection_origin,
        ConnectionOrigin::Service
    );
    assert_eq!(
        saved_mcp(&http(r#","connection_origin":null"#)).connection_origin,
        ConnectionOrigin::Service
    );
    assert_eq!(
        saved_mcp(&http(r#","connection_origin":"environment""#)).connection_origin,
        ConnectionOrigin::Environment
    );
    assert_eq!(
        saved_mcp(&stdio("", "")).connection_origin,
        ConnectionOrigin::Environment
    );
    assert_eq!(
        saved_mcp(&stdio("", r#","connection_origin":null"#)).connection_origin,
        ConnectionOrigin::Environment
    );
    assert_each_form(
        &stdio("", r#","connection_origin":"service""#),
        Some("{p}tools[0].connection_origin"),
        "MCP stdio servers run in the Environment; connection_origin must be environment.",
    );
    // The rule spans two members, so it holds whichever comes first.
    assert_each_form(
        r#""tools":[{"type":"mcp","connection_origin":"service","server_label":"x","transport":{"type":"stdio","command":"npx","cwd":"/w"}}]"#,
        Some("{p}tools[0].connection_origin"),
        "MCP stdio servers run in the Environment; connection_origin must be environment.",
    );
}

#[test]
fn credential_id() {
    assert_eq!(
        saved_mcp(&http(r#","credential_id":"cred_1""#))
            .credential_id
            .as_deref(),
        Some("cred_1")
    );
    assert_each_form(
        &http(r#","credential_id":"""#),
        Some("{p}tools[0].credential_id"),
        "MCP credential_id must be null or a nonempty string.",
    );
    assert_each_form(
        &stdio("", r#","credential_id":"cred_1""#),
        Some("{p}tools[0].credential_id"),
        "MCP stdio servers take no credential_id.",
    );
    assert_each_form_ok(&stdio("", r#","credential_id":null"#));
}

#[test]
fn allowed_tools_null_and_empty_stay_distinct() {
    assert_eq!(saved_mcp(&http("")).allowed_tools, None);
    assert_eq!(
        saved_mcp(&http(r#","allowed_tools":null"#)).allowed_tools,
        None
    );
    assert_eq!(
        saved_mcp(&http(r#","allowed_tools":[]"#)).allowed_tools,
        Some(vec![])
    );
    assert_eq!(
        saved_mcp(&http(r#","allowed_tools":["a","b"]"#)).allowed_tools,
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert_each_form(
        &http(r#","allowed_tools":["a",""]"#),
        Some("{p}tools[0].allowed_tools[1]"),
        "MCP allowed_tools requires nonempty string names.",
    );
    assert_each_form(
        &http(r#","allowed_tools":[null]"#),
        Some("{p}tools[0].allowed_tools[0]"),
        "Invalid type for '{p}tools[0].allowed_tools[0]': expected a string, but got null instead.",
    );
    assert_each_form(
        &http(r#","allowed_tools":"a""#),
        Some("{p}tools[0].allowed_tools"),
        "Invalid type for '{p}tools[0].allowed_tools': expected an array, but got a string instead.",
    );
}

#[test]
fn required_and_request_metadata() {
    assert!(!saved_mcp(&http("")).required);
    assert!(saved_mcp(&http(r#","required":true"#)).required);
    assert_each_form(
        &http(r#","required":null"#),
        Some("{p}tools[0].required"),
        "Invalid type for '{p}tools[0].required': expected a boolean, but got null instead.",
    );
    assert_each_form_ok(&http(r#","request_metadata":{}"#));
    assert_each_form_ok(&http(r#","request_metadata":null"#));
    assert_each_form(
        &http(r#","request_metadata":{"k":"v"}"#),
        Some("{p}tools[0].request_metadata"),
        "Nonempty MCP request_metadata is not supported yet.",
    );
    assert_each_form(
        &http(r#","request_metadata":"k""#),
        Some("{p}tools[0].request_metadata"),
        "Invalid type for '{p}tools[0].request_metadata': expected an object with string keys and unknown value values, but got a string instead.",
    );
}

#[test]
fn read_back_tools_can_be_sent_again() {
    // The persisted response form is a valid request: every member the reader shows is accepted.
    let saved = create_ok(&format!(
        r#"{{"model":"m",{}}}"#,
        r#""tools":[{"type":"mcp","server_label":"x","transport":{"type":"http","server_url":"https://a.example","headers":{"X-A":"1"}}},{"type":"mcp","server_label":"y","transport":{"type":"stdio","command":"npx","cwd":"/w"}},{"type":"function","name":"f","description":"","parameters":{}}]"#
    ));
    let echoed = serde_json::to_string(&saved.tools).unwrap();
    assert_eq!(
        create_ok(&format!(r#"{{"model":"m","tools":{echoed}}}"#)).tools,
        saved.tools
    );
}
