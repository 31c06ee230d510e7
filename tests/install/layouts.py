"""One config file per harness layout, as its users write them, each with the demo server.

Every fixture holds a stdio entry named ``ledger`` that runs the bundled demo server with an
``env`` of its own, plus things the installer must leave alone: other settings, comments (where
the format allows them), a remote entry, odd indentation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PYTHON = json.dumps(sys.executable)
TOML_PYTHON = json.dumps(sys.executable)

LAYOUTS: dict[str, tuple[str, str]] = {
    # Claude Code's project file: type-tagged entries, an SSE server it cannot proxy.
    "claude-code": (".mcp.json", """{
  "mcpServers": {
    "ledger": {
      "type": "stdio",
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "events": {"type": "sse", "url": "https://events.example.invalid/sse"}
  }
}
"""),
    # Claude Code's user file: the user scope and a project's local scope, among settings.
    "claude-code-user": (".claude.json", """{
  "numStartups": 12,
  "projects": {
    "/home/someone/project": {
      "allowedTools": [],
      "mcpServers": {
        "ledger": {"type": "stdio", "command": %(py)s, "args": ["-m", "elision.demo.server"],
                   "env": {"LEDGER_NOTE": "kept"}}
      }
    }
  },
  "mcpServers": {
    "ledger-user": {
      "type": "stdio",
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"]
    }
  },
  "tipsHistory": {"mcp": 3}
}
"""),
    "claude-desktop": ("claude_desktop_config.json", """{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "ledger": {
            "command": %(py)s,
            "args": [
                "-m",
                "elision.demo.server"
            ],
            "env": {
                "LEDGER_NOTE": "kept"
            }
        }
    }
}
"""),
    "cursor": ("mcp.json", """{
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "web": {"url": "https://web.example.invalid/mcp",
            "headers": {"Authorization": "Bearer ${env:WEB_TOKEN}"}}
  }
}
"""),
    # VS Code: JSONC, with comments and trailing commas, servers and inputs.
    "vscode": ("mcp.json", """{
	// Servers for this workspace
	"inputs": [
		{"type": "promptString", "id": "token", "description": "API token", "password": true},
	],
	"servers": {
		/* the demo ledger */
		"ledger": {
			"type": "stdio",
			"command": %(py)s,
			"args": ["-m", "elision.demo.server"],
			"env": {"LEDGER_NOTE": "kept", "TOKEN": "${input:token}"},
		},
	},
}
"""),
    # Codex: TOML with comments, an env subtable, a cwd and a timeout.
    "codex": ("config.toml", """# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request"

[mcp_servers.ledger]
command = %(tpy)s  # the demo server
args = [
  "-m",
  "elision.demo.server",
]
cwd = %(cwd)s
startup_timeout_sec = 30

[mcp_servers.ledger.env]
LEDGER_NOTE = "kept"

[profiles.deep]
model = "o3"
"""),
    "gemini-cli": ("settings.json", """{
  "theme": "GitHub",
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"},
      "cwd": %(jcwd)s,
      "timeout": 30000,
      "trust": false
    }
  }
}
"""),
    "windsurf": ("mcp_config.json", """{
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "switched-off": {"command": "not-installed-anywhere", "disabled": true}
  }
}
"""),
    # OpenCode: JSONC, its "mcp" section, a command array, "environment", a remote server.
    "opencode": ("opencode.json", """{
  "$schema": "https://opencode.ai/config.json",
  // the model and its provider
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    "ledger": {
      "type": "local",
      "command": [%(py)s, "-m", "elision.demo.server"],
      "enabled": true,
      "environment": {"LEDGER_NOTE": "kept"},
    },
    "docs": {"type": "remote", "url": "https://docs.example.invalid/mcp", "enabled": true}
  }
}
"""),
    # GitHub Copilot CLI: type "local", a tools allow-list, a remote http server with headers.
    "copilot-cli": ("mcp-config.json", """{
  "mcpServers": {
    "ledger": {
      "type": "local",
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"},
      "tools": ["*"]
    },
    "gh": {"type": "http", "url": "https://api.example.invalid/mcp/",
           "headers": {"Authorization": "Bearer ${GH_TOKEN}"}, "tools": ["*"]}
  }
}
"""),
    # Qwen Code: Gemini CLI's layout in ~/.qwen/settings.json, among its own settings.
    "qwen-code": ("settings.json", """{
  "security": {"auth": {"selectedType": "openai"}},
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"},
      "timeout": 30000,
      "trust": false
    },
    "events": {"url": "https://events.example.invalid/sse"}
  }
}
"""),
    # Crush: its "mcp" section, type-tagged entries, an http server with headers.
    "crush": ("crush.json", """{
  "$schema": "https://charm.land/crush.json",
  "mcp": {
    "ledger": {
      "type": "stdio",
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "api": {"type": "http", "url": "https://api.example.invalid/mcp",
            "headers": {"Authorization": "Bearer $API_TOKEN"}}
  }
}
"""),
    # Cline: its own fields on every entry, a disabled one.
    "cline": ("cline_mcp_settings.json", """{
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"},
      "alwaysAllow": [],
      "disabled": false,
      "networkTimeout": 60000
    },
    "paused": {"command": "not-installed-anywhere", "disabled": true, "alwaysAllow": []}
  }
}
"""),
    # Zed: its settings file (JSONC) among editor settings, context_servers, a remote one.
    "zed": ("settings.json", """// Zed settings
{
  "theme": "One Dark",
  "buffer_font_size": 15,
  "context_servers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "remote": {"url": "https://mcp.example.invalid/mcp"}
  },
}
"""),
    # Antigravity: Gemini's mcpServers shape, serverUrl for a remote server.
    "antigravity": ("mcp_config.json", """{
  "mcpServers": {
    "ledger": {
      "command": %(py)s,
      "args": ["-m", "elision.demo.server"],
      "env": {"LEDGER_NOTE": "kept"}
    },
    "docs": {"serverUrl": "https://docs.example.invalid/mcp"}
  }
}
"""),
}


def harness_of(layout: str) -> str:
    return "claude-code" if layout.startswith("claude-code") else layout


def write_layout(layout: str, directory: Path) -> Path:
    """The layout's config file, written under ``directory``; its cwd is ``directory``."""
    name, template = LAYOUTS[layout]
    path = directory / name
    path.write_text(template % {
        "py": PYTHON, "tpy": TOML_PYTHON,
        "cwd": json.dumps(str(directory)), "jcwd": json.dumps(str(directory)),
    }, encoding="utf-8", newline="")
    return path
