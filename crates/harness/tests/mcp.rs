//! MCP servers: origin against placement, transports, where stdio servers start, labels,
//! allowlists, required initialization, credentials and `${` expansion, per harness.

use crate::support;

use serde_json::json;
use support::*;
use switchboard_execution::*;
use switchboard_harness::{HOSTED_WORKSPACE_DIRECTORY, McpTransportKind, NamePattern, declaration};

const LABEL: &str = "The harness does not support this MCP server label.";
const STDIO_ON_NONE: &str =
    "MCP stdio servers require a managed or self-hosted execution environment.";
const SERVICE_ON_WORKSPACE: &str = "Service-origin MCP requires environment none.";
const ENVIRONMENT_ON_NONE: &str =
    "Environment-origin MCP requires a managed or self-hosted execution environment.";
const ORIGIN: &str = "The harness does not support this MCP connection origin.";
const CLAUDE_CWD: &str =
    "The configured engine starts MCP stdio servers in the workspace directory; set cwd to it.";
const MINIMAX_STDIO: &str =
    "The configured engine cannot start MCP stdio servers in the declared cwd.";
const ALLOWED_NULL: &str = "The harness requires allowed_tools null.";
const STDIO_ALLOWED_NULL: &str = "The harness requires allowed_tools null on MCP stdio servers.";
const REQUIRED: &str = "The harness does not support required MCP servers.";

fn servers(s: &mut SessionSnapshot, list: Vec<McpTool>) {
    s.tools = list.into_iter().map(Tool::Mcp).collect();
}

/// One workspace server (environment origin) that every harness accepts, for label rows.
fn on_workspace(s: &mut SessionSnapshot, server: McpTool) {
    s.placement = Placement::OpenaiHosted;
    servers(s, vec![server]);
}

#[test]
fn origin_and_placement_table() {
    run(&[
        row(
            "service origin on none",
            |s| servers(s, vec![http_mcp("tickets")]),
            [admit(), admit(), reject("agent.tools", ORIGIN)],
        ),
        row(
            "environment origin on openai_hosted",
            |s| on_workspace(s, env_http_mcp("tickets")),
            every(admit()),
        ),
        row(
            "environment origin on self_hosted",
            |s| {
                s.placement = self_hosted();
                servers(s, vec![env_http_mcp("tickets")]);
            },
            every(admit()),
        ),
        row(
            "environment origin on none",
            |s| servers(s, vec![env_http_mcp("tickets")]),
            every(reject("agent.tools", ENVIRONMENT_ON_NONE)),
        ),
        row(
            "service origin on self_hosted",
            |s| {
                s.placement = self_hosted();
                servers(s, vec![http_mcp("tickets")]);
            },
            every(reject("agent.tools", SERVICE_ON_WORKSPACE)),
        ),
        row(
            "service origin on openai_hosted",
            |s| {
                s.placement = Placement::OpenaiHosted;
                servers(s, vec![http_mcp("tickets")]);
            },
            every(reject("agent.tools", SERVICE_ON_WORKSPACE)),
        ),
        row(
            "MCP with multi_agent (Subagent MCP calls are child mcp_call Items)",
            |s| {
                on_workspace(s, env_http_mcp("tickets"));
                s.multi_agent.enabled = true;
            },
            every(admit()),
        ),
    ]);
}

#[test]
fn stdio_table() {
    run(&[
        row(
            "stdio on none",
            |s| servers(s, vec![stdio_mcp("local", WORKSPACE)]),
            every(reject("agent.tools[0].transport", STDIO_ON_NONE)),
        ),
        row(
            "stdio on none names the server's index",
            |s| servers(s, vec![http_mcp("remote"), stdio_mcp("local", "/tmp")]),
            [
                reject("agent.tools[1].transport", STDIO_ON_NONE),
                reject("agent.tools[1].transport", STDIO_ON_NONE),
                reject("agent.tools", ORIGIN),
            ],
        ),
        row(
            "stdio in the self_hosted workspace directory",
            |s| {
                s.placement = self_hosted();
                servers(s, vec![stdio_mcp("local", WORKSPACE)]);
            },
            [
                admit(),
                admit(),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio in the workspace directory with a trailing slash",
            |s| {
                s.placement = self_hosted();
                servers(s, vec![stdio_mcp("local", "/srv/app/")]);
            },
            [
                admit(),
                admit(),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio in another directory",
            |s| {
                s.placement = self_hosted();
                servers(s, vec![stdio_mcp("local", "/srv/app/tools")]);
            },
            [
                admit(),
                reject("agent.tools[0].transport.cwd", CLAUDE_CWD),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio in the hosted workspace directory",
            |s| {
                s.placement = Placement::OpenaiHosted;
                servers(s, vec![stdio_mcp("local", HOSTED_WORKSPACE_DIRECTORY)]);
            },
            [
                admit(),
                admit(),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio elsewhere on openai_hosted",
            |s| {
                s.placement = Placement::OpenaiHosted;
                servers(s, vec![stdio_mcp("local", WORKSPACE)]);
            },
            [
                admit(),
                reject("agent.tools[0].transport.cwd", CLAUDE_CWD),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio with an allowlist",
            |s| {
                s.placement = self_hosted();
                servers(
                    s,
                    vec![McpTool {
                        allowed_tools: Some(vec!["lookup".into()]),
                        ..stdio_mcp("local", WORKSPACE)
                    }],
                );
            },
            [
                admit(),
                reject("agent.tools[0].allowed_tools", STDIO_ALLOWED_NULL),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "stdio with an empty allowlist",
            |s| {
                s.placement = self_hosted();
                servers(
                    s,
                    vec![McpTool {
                        allowed_tools: Some(vec![]),
                        ..stdio_mcp("local", WORKSPACE)
                    }],
                );
            },
            [
                admit(),
                reject("agent.tools[0].allowed_tools", STDIO_ALLOWED_NULL),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
        row(
            "required stdio",
            |s| {
                s.placement = self_hosted();
                servers(
                    s,
                    vec![McpTool {
                        required: true,
                        ..stdio_mcp("local", WORKSPACE)
                    }],
                );
            },
            [
                admit(),
                admit(),
                reject("agent.tools[0].transport.cwd", MINIMAX_STDIO),
            ],
        ),
    ]);
}

#[test]
fn server_limits_table() {
    run(&[
        row(
            "an allowlist",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        allowed_tools: Some(vec!["lookup_ticket".into()]),
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [admit(), admit(), reject("agent.tools", ALLOWED_NULL)],
        ),
        row(
            "an empty allowlist",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        allowed_tools: Some(vec![]),
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [admit(), admit(), reject("agent.tools", ALLOWED_NULL)],
        ),
        row(
            "any tool name in the allowlist",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        allowed_tools: Some(vec!["lookup ticket/v2".into(), "ünïcode".into()]),
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [admit(), admit(), reject("agent.tools", ALLOWED_NULL)],
        ),
        row(
            "required",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        required: true,
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [admit(), admit(), reject("agent.tools", REQUIRED)],
        ),
        row(
            "a Vault credential",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        credential_id: Some("cred_1".into()),
                        ..env_http_mcp("tickets")
                    },
                )
            },
            every(admit()),
        ),
        row(
            "allowlist before required",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        allowed_tools: Some(vec![]),
                        required: true,
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [admit(), admit(), reject("agent.tools", ALLOWED_NULL)],
        ),
    ]);
}

#[test]
fn label_table() {
    run(&[
        row(
            "letters, digits, _ and -",
            |s| on_workspace(s, env_http_mcp("Tickets-v2_1")),
            every(admit()),
        ),
        row(
            "codex_apps",
            |s| on_workspace(s, env_http_mcp("codex_apps")),
            [reject("agent.tools", LABEL), admit(), admit()],
        ),
        row(
            "functions without functions",
            |s| on_workspace(s, env_http_mcp("functions")),
            [admit(), reject("agent.tools", LABEL), admit()],
        ),
        row(
            "functions beside functions",
            |s| {
                on_workspace(s, env_http_mcp("functions"));
                s.tools.push(function("lookup"));
            },
            [
                admit(),
                reject("agent.tools", LABEL),
                reject("agent.tools", LABEL),
            ],
        ),
        row(
            "a dot",
            |s| on_workspace(s, env_http_mcp("tickets.v2")),
            [
                reject("agent.tools", LABEL),
                reject("agent.tools", LABEL),
                admit(),
            ],
        ),
        row(
            "a space",
            |s| on_workspace(s, env_http_mcp("my tickets")),
            [
                reject("agent.tools", LABEL),
                reject("agent.tools", LABEL),
                admit(),
            ],
        ),
        row(
            "non-ASCII letters",
            |s| on_workspace(s, env_http_mcp("billets_été")),
            [
                reject("agent.tools", LABEL),
                reject("agent.tools", LABEL),
                admit(),
            ],
        ),
        row(
            "the label is checked before the placement",
            |s| servers(s, vec![stdio_mcp("functions", "/tmp")]),
            [
                reject("agent.tools[0].transport", STDIO_ON_NONE),
                reject("agent.tools", LABEL),
                reject("agent.tools[0].transport", STDIO_ON_NONE),
            ],
        ),
        row(
            "duplicate labels",
            |s| {
                s.placement = Placement::OpenaiHosted;
                servers(
                    s,
                    vec![
                        env_http_mcp("tickets"),
                        stdio_mcp("tickets", HOSTED_WORKSPACE_DIRECTORY),
                    ],
                );
            },
            every(reject(
                "agent.tools",
                "Execution requires distinct MCP server labels.",
            )),
        ),
    ]);
}

#[test]
fn env_reference_table() {
    run(&[
        row(
            "${ in server_url",
            |s| {
                on_workspace(
                    s,
                    McpTool {
                        transport: McpTransport::Http {
                            server_url: "https://mcp.example.com/${TENANT}/mcp".into(),
                            headers: Default::default(),
                        },
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [
                admit(),
                reject(
                    "agent.tools[0].transport.server_url",
                    "The harness does not support '${' in an MCP server_url.",
                ),
                admit(),
            ],
        ),
        row(
            "${ in a header value",
            |s| {
                let mut headers = serde_json::Map::new();
                headers.insert("X-Tenant".into(), json!("acme"));
                headers.insert("X-Trace".into(), json!("id-${HOME}"));
                on_workspace(
                    s,
                    McpTool {
                        transport: McpTransport::Http {
                            server_url: "https://mcp.example.com/mcp".into(),
                            headers,
                        },
                        ..env_http_mcp("tickets")
                    },
                )
            },
            [
                admit(),
                reject(
                    "agent.tools[0].transport.headers",
                    "The harness does not support '${' in an MCP header value.",
                ),
                admit(),
            ],
        ),
        row(
            "a $ without a brace",
            |s| {
                let mut headers = serde_json::Map::new();
                headers.insert("X-Price".into(), json!("$5 {x}"));
                on_workspace(
                    s,
                    McpTool {
                        transport: McpTransport::Http {
                            server_url: "https://mcp.example.com/$HOME/mcp".into(),
                            headers,
                        },
                        ..env_http_mcp("tickets")
                    },
                )
            },
            every(admit()),
        ),
        row(
            "${ in a header name is not a value",
            |s| {
                let mut headers = serde_json::Map::new();
                headers.insert("X-${A}".into(), json!("plain"));
                on_workspace(
                    s,
                    McpTool {
                        transport: McpTransport::Http {
                            server_url: "https://mcp.example.com/mcp".into(),
                            headers,
                        },
                        ..env_http_mcp("tickets")
                    },
                )
            },
            every(admit()),
        ),
    ]);
}

#[test]
fn declared_limits_not_used_by_a_built_in_harness() {
    let h = HarnessId::Codex;
    let mut decl = declaration(h).clone();
    decl.mcp.transports = &[];
    assert_eq!(
        check_with(&decl, h, |s| servers(s, vec![http_mcp("tickets")])),
        reject("agent.tools", "The harness does not support MCP tools."),
    );

    let mut decl = declaration(h).clone();
    decl.mcp.transports = &[McpTransportKind::Http];
    assert_eq!(
        check_with(&decl, h, |s| {
            s.placement = self_hosted();
            servers(
                s,
                vec![env_http_mcp("remote"), stdio_mcp("local", WORKSPACE)],
            );
        }),
        reject(
            "agent.tools[1].transport",
            "The harness does not support MCP stdio servers."
        ),
    );

    let mut decl = declaration(h).clone();
    decl.mcp.bearer_auth = false;
    assert_eq!(
        check_with(&decl, h, |s| {
            servers(
                s,
                vec![McpTool {
                    credential_id: Some("cred_1".into()),
                    ..http_mcp("tickets")
                }],
            )
        }),
        reject(
            "agent.tools",
            "The harness does not support authenticated MCP servers."
        ),
    );

    let mut decl = declaration(h).clone();
    decl.mcp.tool_name = NamePattern::AsciiAlphanumericUnderscoreHyphen;
    assert_eq!(
        check_with(&decl, h, |s| {
            servers(
                s,
                vec![McpTool {
                    allowed_tools: Some(vec!["ok".into(), "not.ok".into()]),
                    ..http_mcp("tickets")
                }],
            )
        }),
        reject(
            "agent.tools",
            "The harness does not support this MCP tool name."
        ),
    );
}
