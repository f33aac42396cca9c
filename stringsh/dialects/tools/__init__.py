"""Seed 001's JSON workspace tools: `stringsh tools`, JSON lines in and out."""
