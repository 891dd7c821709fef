"""An OpenAPI 3 schema as plain rows for a documentation page (no script needed to read it)."""

from __future__ import annotations

from dataclasses import dataclass, field

METHODS = ("get", "head", "options", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str
    required: bool
    type: str
    constraints: str
    description: str


@dataclass(frozen=True)
class Response:
    status: str
    description: str
    content: list[tuple[str, str, str]]  # (media type, schema type, the schema's anchor or "")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    anchor: str
    summary: str
    description: str
    parameters: list[Parameter]
    responses: list[Response]


@dataclass(frozen=True)
class Property:
    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True)
class Component:
    name: str
    anchor: str
    description: str
    properties: list[Property] = field(default_factory=list)


@dataclass(frozen=True)
class Description:
    title: str
    version: str
    description: str
    operations: list[Operation]
    components: list[Component]


def type_of(schema: dict) -> str:
    """A short reading of a JSON Schema: `integer`, `string or null`, `list of LeaderboardRow`…"""
    if not schema:
        return "any"
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in schema or "oneOf" in schema:
        options = [type_of(option) for option in schema.get("anyOf", schema.get("oneOf", []))]
        return " or ".join(dict.fromkeys(options))
    if "enum" in schema:
        return "one of " + ", ".join(f"{value}" for value in schema["enum"])
    if "const" in schema:
        return f"{schema['const']}"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {type_of(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of string to {type_of(schema['additionalProperties'])}"
    if schema.get("format"):
        return f"{kind} ({schema['format']})"
    return str(kind)


def constraints_of(schema: dict) -> str:
    words = []
    for key, label in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥"), ("maxLength", "length ≤")):
        if key in schema:
            words.append(f"{label} {schema[key]}")
    if "default" in schema and schema["default"] is not None:
        default = schema["default"]
        words.append(f"default {str(default).lower() if isinstance(default, bool) else default}")
    for option in schema.get("anyOf", []):
        extra = constraints_of(option)
        if extra:
            words.append(extra)
    return ", ".join(words)


def _anchor(*parts: str) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in part).strip("-") for part in parts).lower()


def _ref_anchor(schema: dict) -> str:
    return _anchor("schema", schema["$ref"].rsplit("/", 1)[-1]) if "$ref" in schema else ""


def describe(schema: dict) -> Description:
    operations = []
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            parameters = [
                Parameter(name=parameter["name"], location=parameter["in"], required=parameter.get("required", False),
                          type=type_of(parameter.get("schema", {})), constraints=constraints_of(parameter.get("schema",
                                                                                                              {})),
                          description=parameter.get("description") or parameter.get("schema", {}).get("description",
                                                                                                      ""))
                for parameter in operation.get("parameters", [])
            ]
            responses = [
                Response(status=str(status), description=response.get("description", ""),
                         content=[(media, type_of(body.get("schema", {})), _ref_anchor(body.get("schema", {})))
                                  for media, body in response.get("content", {}).items()])
                for status, response in sorted(operation.get("responses", {}).items())
            ]
            description = operation.get("description", "")
            operations.append(Operation(method=method.upper(), path=path, anchor=_anchor("op",
                                                                                         operation.get("operationId")
                                                                                         or f"{method} {path}"),
                                        summary=operation.get("summary", ""), description=description,
                                        parameters=parameters, responses=responses))
    components = []
    for name, component in sorted(schema.get("components", {}).get("schemas", {}).items()):
        required = set(component.get("required", []))
        properties = [Property(name=key, type=type_of(value), required=key in required,
                               description=value.get("description", ""))
                      for key, value in component.get("properties", {}).items()]
        components.append(Component(name=name, anchor=_anchor("schema", name),
                                    description=component.get("description", ""), properties=properties))
    info = schema.get("info", {})
    return Description(title=info.get("title", ""), version=info.get("version", ""),
                       description=info.get("description", ""), operations=operations, components=components)
