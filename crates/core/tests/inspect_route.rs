//! `/inspect`: the Session inspector's page and assets are served without a key, with the
//! content types and the strict policy the page relies on, while `/v1` still demands one.

use crate::support;

use support::Peer;
use switchboard_core::inspect::CONTENT_SECURITY_POLICY;

async fn get(base: &str, path: &str) -> reqwest::Response {
    reqwest::get(format!("{base}{path}")).await.unwrap()
}

fn header<'a>(resp: &'a reqwest::Response, name: &str) -> &'a str {
    resp.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_with_a_strict_policy() {
    let (_state, api_base, _dir) = Peer::core_only().await;
    let base = api_base.trim_end_matches("/v1");

    let page = get(base, "/inspect").await;
    assert_eq!(page.status(), 200);
    assert_eq!(header(&page, "content-type"), "text/html; charset=utf-8");
    let html = page.text().await.unwrap();

    // Every script and style the page loads is one of its own files, never inline.
    let mut assets = Vec::new();
    for (tag, attr) in [
        ("<script", "src=\""),
        ("<link rel=\"stylesheet\"", "href=\""),
    ] {
        for at in html.match_indices(tag).map(|(i, _)| i) {
            let rest = &html[at..];
            let open = rest[..rest.find('>').unwrap()]
                .find(attr)
                .unwrap_or_else(|| panic!("an inline {tag} in the page"));
            let url = &rest[open + attr.len()..];
            assets.push(url[..url.find('"').unwrap()].to_owned());
        }
    }
    assert_eq!(assets, ["/inspect/inspector.js", "/inspect/inspector.css"]);

    for (path, content_type) in [
        ("/inspect", "text/html; charset=utf-8"),
        ("/inspect/inspector.js", "text/javascript; charset=utf-8"),
        ("/inspect/inspector.css", "text/css; charset=utf-8"),
    ] {
        let resp = get(base, path).await;
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(header(&resp, "content-type"), content_type, "{path}");
        assert_eq!(
            header(&resp, "content-security-policy"),
            CONTENT_SECURITY_POLICY,
            "{path}"
        );
        assert_eq!(header(&resp, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header(&resp, "cache-control"), "no-cache", "{path}");
        assert_eq!(header(&resp, "referrer-policy"), "no-referrer", "{path}");
        assert!(!resp.text().await.unwrap().is_empty(), "{path}");
    }
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
    ] {
        assert!(CONTENT_SECURITY_POLICY.contains(directive), "{directive}");
    }

    // The page is no way around the key: the API it reads still refuses a request without one.
    let api = reqwest::Client::new()
        .get(format!("{api_base}/agents/sessions"))
        .header("OpenAI-Beta", "agents=v1")
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401);
    assert_eq!(get(base, "/inspect/other.js").await.status(), 404);
}
