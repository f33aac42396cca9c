"""stringsh: a chat-style command shell over a workspace folder."""

__version__ = "0.1.0"
