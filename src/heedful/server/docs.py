"""OpenAPI pages served from the package's own files: `/docs` must work on a machine with no network.

FastAPI's default `/docs` page loads Swagger UI from a CDN in the browser; the `fastapi-offline`
package ships Swagger UI 5 (which reads OpenAPI 3.1, as FastAPI writes it), so its files are
mounted here and the page points at them. ReDoc (also a CDN page by default) is left out.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"


def install_docs(app: FastAPI) -> None:
    """Mount the bundled Swagger UI at `ASSETS` and serve `/docs` from it; without the bundle, no `/docs`."""
    try:
        import fastapi_offline
    except ImportError:  # the page is a convenience; /openapi.json is served either way
        return
    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount(ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")
    title = f"{app.title} – API"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            oauth2_redirect_url="/docs/oauth2-redirect",
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()
