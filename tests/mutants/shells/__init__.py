"""Broken §16 shells: each must make `hookconf run` report H16 failing."""
