"""Base of the topology spec models."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError


class Spec(BaseModel):
    """Unknown keys are errors that name the key and the allowed keys."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data):
        if isinstance(data, dict):
            for key in data:
                if key not in cls.model_fields:
                    raise PydanticCustomError(
                        "unknown_field", "unknown field '{field}'; allowed: {allowed}",
                        {"field": key, "allowed": ", ".join(cls.model_fields)})
        return data
