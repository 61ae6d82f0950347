//! `[ui]` and icons.

use super::Checker;
use crate::diagnostic::Rule;
use crate::metadata::read::{RawIcon, RawUi, Sp};
use crate::metadata::tree::quote;
use crate::metadata::uri;
use crate::metadata::{Icon, Theme, UiMeta, Visibility};

impl Checker<'_> {
    pub(super) fn check_ui(&mut self, ui: &Sp<RawUi>) -> Option<UiMeta> {
        let mut meta = UiMeta::default();
        let mut ok = true;
        if let Some(uri) = ui
            .value
            .resource_uri
            .as_ref()
            .filter(|u| !u.value.is_empty())
        {
            match uri::check_ui_uri(&uri.value) {
                Ok(()) => meta.resource_uri = Some(uri.value.clone()),
                Err(why) => {
                    self.report.push(
self.report.error(
                            Rule::BadUiUri,
                            format!(
                                "ui.resourceUri {} must be a URI with the `ui` scheme, e.g. \"ui://dashboard/sales\"",
                                quote(&uri.value)
                            ),
                        )
                        .with_primary(uri.span, why),
                    );
                    ok = false;
                }
            }
        }
        if let Some(visibility) = &ui.value.visibility {
            for (value, span) in &visibility.value {
                match value.as_str() {
                    "model" => meta.visibility.push(Visibility::Model),
                    "app" => meta.visibility.push(Visibility::App),
                    _ => {
                        self.report.push(
                            self.report
                                .error(
                                    Rule::BadUiVisibility,
                                    format!(
                                        "ui.visibility value {} must be \"model\" or \"app\"",
                                        quote(value)
                                    ),
                                )
                                .with_primary(*span, "not a visibility"),
                        );
                        ok = false;
                    }
                }
            }
        }
        let has_uri = ui
            .value
            .resource_uri
            .as_ref()
            .is_some_and(|u| !u.value.is_empty());
        let has_visibility = ui
            .value
            .visibility
            .as_ref()
            .is_some_and(|v| !v.value.is_empty());
        if !has_uri && !has_visibility {
            self.report.push(
                self.report
                    .error(
                        Rule::EmptyUi,
                        "[ui] has neither a non-empty `resourceUri` nor a non-empty `visibility`",
                    )
                    .with_primary(ui.key, "empty UI link")
                    .with_help("set `resourceUri = \"ui://…\"`, or remove [ui]"),
            );
            ok = false;
        }
        ok.then_some(meta)
    }

    pub(super) fn check_icon(&mut self, icon: &RawIcon) -> Option<Icon> {
        let n = icon.index;
        let mut ok = true;
        let src = match &icon.src {
            None => {
                self.report.push(
                    self.report
                        .error(Rule::IconSrc, format!("icon {n} has no `src`"))
                        .with_primary(icon.span, "this icon needs a `src`"),
                );
                return None;
            }
            Some(src) if src.value.is_empty() => {
                self.report.push(
                    self.report
                        .error(Rule::IconSrc, format!("icon {n} has an empty `src`"))
                        .with_primary(src.span, "empty"),
                );
                return None;
            }
            Some(src) => src,
        };
        if !uri::is_icon_src(&src.value) {
            self.report.push(
                self.report
                    .error(
                        Rule::IconSrc,
                        format!(
                            "icon {n}: `src` {} must be an https: URL or a data: URI",
                            quote(&src.value)
                        ),
                    )
                    .with_primary(src.span, "not https: or data:")
                    .with_help("MCP clients reject icons from other schemes"),
            );
            ok = false;
        }
        let theme = match &icon.theme {
            None => None,
            Some(t) if t.value == "light" => Some(Theme::Light),
            Some(t) if t.value == "dark" => Some(Theme::Dark),
            Some(t) => {
                self.report.push(
                    self.report
                        .error(
                            Rule::IconTheme,
                            format!(
                                "icon {n}: `theme` {} must be \"light\" or \"dark\"",
                                quote(&t.value)
                            ),
                        )
                        .with_primary(t.span, "not a theme"),
                );
                ok = false;
                None
            }
        };
        ok.then(|| Icon {
            src: src.value.clone(),
            mime_type: icon.mime_type.as_ref().map(|m| m.value.clone()),
            sizes: icon
                .sizes
                .as_ref()
                .map(|s| s.value.iter().map(|(v, _)| v.clone()).collect())
                .unwrap_or_default(),
            theme,
        })
    }
}
