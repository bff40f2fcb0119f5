#!/usr/bin/env python3
"""Writes the Pydantic part of the structured-output schema corpus.

Usage: scripts/make-schema-corpus.py [OUT_DIR]   (default Tests/IntegrationTests/Fixtures/schema-corpus)

Each model below becomes OUT_DIR/pydantic-<name>.json, exactly as Pydantic's
`model_json_schema()` writes it (nested models under $defs and reached by $ref, enums, unions,
constrained fields, formats); the model's docstring, which Pydantic puts in the schema's
`description` (of the root, or of the definition a recursive model's root refers to), is the
request the corpus test (Tests/IntegrationTests/SchemaCorpusTests.swift)
sends beside the schema. Needs the pydantic that scripts/setup-python-tools.sh pins. The files are
committed; run this again after changing a model and commit what changes.
"""
import datetime
import enum
import json
import pathlib
import sys
import uuid
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AnyUrl, BaseModel, ConfigDict, Field

Email = Annotated[str, Field(json_schema_extra={"format": "email"})]


class Status(str, enum.Enum):
    pending = "pending"
    shipped = "shipped"
    delivered = "delivered"


class Address(BaseModel):
    street: str = Field(max_length=40)
    city: str = Field(max_length=30)
    postcode: str = Field(pattern=r"^[0-9]{4,6}$")
    country: Literal["UK", "FR", "DE", "US"]


class Customer(BaseModel):
    name: str = Field(max_length=40)
    email: Email
    address: Address


class LineItem(BaseModel):
    product: str = Field(max_length=30)
    quantity: int = Field(ge=1, le=99)
    unit_price: float = Field(ge=0, le=10000)


class Order(BaseModel):
    """An order of two coffees and a croissant by Ada Lovelace, 10 Baker Street, London 12345, UK, placed on 2024-03-01 at 09:30 UTC."""
    id: uuid.UUID
    customer: Customer
    items: list[LineItem] = Field(min_length=1, max_length=3)
    status: Status
    placed_at: datetime.datetime


class Category(BaseModel):
    """The categories of a small shop: Food with Fruit and Bread below it."""
    name: str = Field(max_length=20)
    children: list["Category"] = Field(default_factory=list, max_length=3)


class Cat(BaseModel):
    name: str = Field(max_length=20)
    kind: Literal["cat"]
    indoor: bool


class Dog(BaseModel):
    name: str = Field(max_length=20)
    kind: Literal["dog"]
    good_boy: bool = True


class Bird(BaseModel):
    kind: Literal["bird"]
    can_talk: bool


class Adoption(BaseModel):
    """Tom adopts a dog called Rex."""
    adopter: str = Field(max_length=30)
    pet: Annotated[Union[Cat, Dog, Bird], Field(discriminator="kind")]


class Person(BaseModel):
    """Grace Hopper, born 1906-12-09, 1.68 m tall, grace@navy.mil, https://en.wikipedia.org/wiki/Grace_Hopper."""
    name: str = Field(min_length=1, max_length=40)
    age: int = Field(ge=0, le=130)
    height_m: float = Field(gt=0, lt=3)
    email: Email
    homepage: AnyUrl
    birthday: datetime.date


class Meeting(BaseModel):
    """A 45 minute project review on 2024-05-14 at 14:00 UTC with ann@example.com and bob@example.com."""
    title: str = Field(max_length=40)
    day: datetime.date
    start: datetime.time
    minutes: int = Field(ge=5, le=480)
    attendees: list[Email] = Field(min_length=1, max_length=3)


class Inventory(BaseModel):
    """Stock of a bakery: 12 baguettes, 30 croissants and 5 cakes."""
    shop: str = Field(max_length=30)
    stock: dict[str, Annotated[int, Field(ge=0)]] = Field(max_length=4)
    open: bool


Latitude = Annotated[float, Field(ge=-90, le=90)]
Longitude = Annotated[float, Field(ge=-180, le=180)]


class Place(BaseModel):
    """The Eiffel Tower in Paris, at latitude 48.8584 and longitude 2.2945."""
    name: str = Field(max_length=40)
    location: tuple[Latitude, Longitude]
    kind: Literal["landmark", "city", "shop", "park"]


class ListNode(BaseModel):
    """The numbers 3, 1 and 4 as a linked list."""
    value: int
    next: Optional["ListNode"] = None


class Survey(BaseModel):
    """A customer rated the service 4 out of 5 and said the delivery was late."""
    rating: int = Field(ge=1, le=5)
    recommend: bool
    comment: Optional[str] = Field(default=None, max_length=80)
    answers: list[Union[int, str, bool]] = Field(max_length=3)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str = Field(pattern=r"^[a-z_]{3,12}$")
    value: int


class StrictConfig(BaseModel):
    """A configuration with the keys timeout=30 and retries=3."""
    model_config = ConfigDict(extra="forbid")
    version: Literal[1, 2]
    entries: list[Strict] = Field(min_length=1, max_length=3)


class Num(BaseModel):
    op: Literal["num"]
    value: int = Field(ge=-100, le=100)


class Add(BaseModel):
    op: Literal["add"]
    left: "Expr"
    right: "Expr"


class Neg(BaseModel):
    op: Literal["neg"]
    arg: "Expr"


Expr = Annotated[Union[Num, Add, Neg], Field(discriminator="op")]


class Calculation(BaseModel):
    """The expression 2 + (3 + 4) as a tree."""
    expr: Expr


class Product(BaseModel):
    """A blue mug, SKU MUG-0042, 8.50 EUR, 10 x 8 x 8 cm."""
    sku: str = Field(pattern=r"^[A-Z]{3}-[0-9]{4}$")
    name: str = Field(max_length=30)
    price: float = Field(ge=0)
    currency: Literal["USD", "EUR", "GBP"]
    size_cm: tuple[int, int, int]


class Settings(BaseModel):
    """Dark mode on, font size 14, and a note that the user prefers English."""
    dark_mode: bool
    font_size: int = Field(ge=8, le=32)
    metadata: dict[str, Any] = Field(max_length=2)


class Level(str, enum.Enum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


class LogEntry(BaseModel):
    at: datetime.datetime
    level: Level
    message: str = Field(max_length=60)


class Log(BaseModel):
    """Two log lines: the server started at 2024-01-01T08:00:00Z, then a warning about low disk space."""
    service: str = Field(max_length=20)
    entries: list[LogEntry] = Field(min_length=1, max_length=2)


class Contact(BaseModel):
    """Dr. Lee, phone +44 20 7946 0958, lee@example.org."""
    id: uuid.UUID
    name: str = Field(max_length=30)
    phone: str = Field(pattern=r"^\+[0-9]{1,3}( [0-9]{2,4}){2,4}$")
    email: Optional[Email] = None


MODELS = {
    "order": Order, "category-tree": Category, "adoption": Adoption, "person": Person, "meeting": Meeting,
    "inventory": Inventory, "place": Place, "linked-list": ListNode, "survey": Survey, "strict-config": StrictConfig,
    "calculation": Calculation, "product": Product, "settings": Settings, "log": Log, "contact": Contact,
}


def main() -> None:
    root = pathlib.Path(__file__).resolve().parent.parent
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "Tests/IntegrationTests/Fixtures/schema-corpus"
    out.mkdir(parents=True, exist_ok=True)
    for name, model in MODELS.items():
        schema = model.model_json_schema()
        # A recursive model's schema is a $ref to its own definition, which holds the docstring.
        target = schema["$defs"][schema["$ref"].split("/")[-1]] if "$ref" in schema else schema
        assert target.get("description"), f"{name}: the docstring is the corpus request"
        (out / f"pydantic-{name}.json").write_text(json.dumps(schema, indent=1, ensure_ascii=False) + "\n")
    print(f"make-schema-corpus: wrote {len(MODELS)} schemas to {out}")


if __name__ == "__main__":
    main()
