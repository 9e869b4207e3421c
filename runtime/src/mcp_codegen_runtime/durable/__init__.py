"""Typed tool calls as Temporal activities: `activities` (the worker's side), `workflow` (the workflow's side).

Only a generated package's `temporal` module imports these modules, and only they import `temporalio` (the
package's `temporal` extra): a package used without it never loads Temporal.
"""
