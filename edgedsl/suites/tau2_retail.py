"""τ²-bench's retail tools, reimplemented in process over the suite's JSON database.

τ² (Sierra Research, MIT) ships its retail tools as Python; none of that code is used here.
Each operation below follows the tools' documented behaviour (``retail/policy.md`` and the
tool descriptions: what each one checks, refuses and changes) and is checked against the
suite's replay of its train tasks (``tau2/derived/retail_gold_replay.jsonl``: every gold call's
output or error, and every record the gold actions change). A refusal raises
:class:`~.stateful.ToolError` with the suite's message; it becomes the record's ``error``.

:class:`RetailEnv` holds one copy of the database (``products``, ``users``, ``orders``);
:func:`retail_tools` makes the python backend's ``TOOLS`` over one environment.
"""

from __future__ import annotations

import ast
import copy
import operator
from collections.abc import Callable
from typing import Any

from .stateful import Environment, ToolError

__all__ = ["KEYS", "NESTED", "OUTPUTS", "PLATFORM", "RetailEnv", "as_record", "evaluate",
           "retail_tools"]

PLATFORM = "tau2_retail"
Record = dict[str, Any]

_OPS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def evaluate(expression: str) -> float:
    """An arithmetic expression (numbers, ``+ - * /``, parentheses) evaluated on its syntax
    tree — the text never runs as code; anything else is a ToolError."""
    if any(c not in "0123456789+-*/(). " for c in expression):
        raise ToolError("Invalid characters in expression")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ToolError("Invalid expression") from None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ToolError("Invalid expression")

    try:
        return ev(tree.body)
    except ZeroDivisionError:
        raise ToolError("Division by zero") from None


class RetailEnv(Environment):
    """The retail database and its operations (each one a tool of the ``tau2_retail``
    platform); ``db`` is copied, never changed in place."""

    def __init__(self, db: dict[str, Any]) -> None:
        super().__init__()
        self.db = copy.deepcopy(db)

    # ------------------------------------------------------------ lookups

    def _user(self, user_id: str) -> Record:
        user = self.db["users"].get(user_id)
        if user is None:
            raise ToolError("User not found")
        return user

    def _order(self, order_id: str) -> Record:
        order = self.db["orders"].get(order_id)
        if order is None:
            raise ToolError("Order not found")
        return order

    def _product(self, product_id: str) -> Record:
        product = self.db["products"].get(product_id)
        if product is None:
            raise ToolError("Product not found")
        return product

    def _payment(self, user: Record, payment_method_id: str) -> Record:
        method = user["payment_methods"].get(payment_method_id)
        if method is None:
            raise ToolError("Payment method not found")
        return method

    def _check_items(self, order: Record, item_ids: list[str]) -> None:
        """Each item id at most as often as the order holds it."""
        held = [item["item_id"] for item in order["items"]]
        for item_id in item_ids:
            if item_ids.count(item_id) > held.count(item_id):
                raise ToolError(f"Number of {item_id} not found.")

    def _price_difference(self, order: Record, item_ids: list[str],
                          new_item_ids: list[str]) -> tuple[float, list[Record]]:
        """The new variants (same product, available) and what they cost more in total (the
        plain sum of the differences, unrounded, as the suite's replay records it)."""
        if len(item_ids) != len(new_item_ids):
            raise ToolError("The number of items to be exchanged should match.")
        diff, variants = 0.0, []
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
            item = next(i for i in order["items"] if i["item_id"] == item_id)
            variant = self._product(item["product_id"])["variants"].get(new_item_id)
            if variant is None or not variant["available"]:
                raise ToolError(f"New item {new_item_id} not found or available")
            diff += variant["price"] - item["price"]
            variants.append(variant)
        return diff, variants

    @staticmethod
    def _is_gift_card(method: Record) -> bool:
        return method.get("source") == "gift_card"

    # ------------------------------------------------------------ read tools

    def calculate(self, expression: str) -> str:
        """Calculate an arithmetic expression; the result rounded to 2 decimals, as text."""
        return str(round(evaluate(expression), 2))

    def find_user_id_by_email(self, email: str) -> str:
        """The user id of the user with this email."""
        for user_id, user in self.db["users"].items():
            if user["email"].lower() == email.lower():
                return str(user_id)
        raise ToolError("User not found")

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """The user id of the user with this first and last name (any case) and zip code."""
        for user_id, user in self.db["users"].items():
            name = user["name"]
            if (name["first_name"].lower() == first_name.lower()
                    and name["last_name"].lower() == last_name.lower()
                    and user["address"]["zip"] == zip):
                return str(user_id)
        raise ToolError("User not found")

    def get_order_details(self, order_id: str) -> Record:
        """The status and details of an order."""
        return copy.deepcopy(self._order(order_id))

    def get_product_details(self, product_id: str) -> Record:
        """The inventory details of a product (its variants, by item id)."""
        return copy.deepcopy(self._product(product_id))

    def get_item_details(self, item_id: str) -> Record:
        """The details of one item (a product variant)."""
        for product in self.db["products"].values():
            if item_id in product["variants"]:
                return copy.deepcopy(product["variants"][item_id])
        raise ToolError("Item not found")

    def get_user_details(self, user_id: str) -> Record:
        """The details of a user, including their orders."""
        return copy.deepcopy(self._user(user_id))

    def list_all_product_types(self) -> Record:
        """The name and product id of every product type, by name."""
        products = sorted(self.db["products"].values(), key=lambda p: p["name"])
        return {p["name"]: p["product_id"] for p in products}

    def transfer_to_human_agents(self, summary: str) -> str:
        """Transfer the user to a human agent, with a summary of the issue."""
        return "Transfer successful"

    # ------------------------------------------------------------ write tools

    def cancel_pending_order(self, order_id: str, reason: str) -> Record:
        """Cancel a pending order ('no longer needed' or 'ordered by mistake'); every payment
        refunded to its method, a gift card at once."""
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be cancelled")
        if reason not in ("no longer needed", "ordered by mistake"):
            raise ToolError("Invalid reason")
        user = self._user(order["user_id"])
        refunds = []
        for payment in order["payment_history"]:
            method_id = payment["payment_method_id"]
            refunds.append({"transaction_type": "refund", "amount": payment["amount"],
                            "payment_method_id": method_id})
            method = user["payment_methods"].get(method_id)
            if method is not None and self._is_gift_card(method):
                method["balance"] = round(method["balance"] + payment["amount"], 2)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        return copy.deepcopy(order)

    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str],
                                       new_item_ids: list[str],
                                       payment_method_id: str) -> Record:
        """Ask to exchange items of a delivered order for other variants of the same
        products; the price difference to be paid or refunded through a payment method."""
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ToolError("Non-delivered order cannot be exchanged")
        self._check_items(order, item_ids)
        diff, _ = self._price_difference(order, item_ids, new_item_ids)
        diff = round(diff, 2)
        method = self._payment(self._user(order["user_id"]), payment_method_id)
        if self._is_gift_card(method) and method["balance"] < diff:
            raise ToolError("Insufficient gift card balance to pay for the price difference")
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = diff
        return copy.deepcopy(order)

    def modify_pending_order_address(self, order_id: str, address1: str, address2: str,
                                     city: str, state: str, country: str, zip: str) -> Record:
        """Change the shipping address of a pending order."""
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be modified")
        order["address"] = {"address1": address1, "address2": address2, "city": city,
                            "country": country, "state": state, "zip": zip}
        return copy.deepcopy(order)

    def modify_pending_order_items(self, order_id: str, item_ids: list[str],
                                   new_item_ids: list[str], payment_method_id: str) -> Record:
        """Swap items of a pending order for other variants of the same products (once per
        order); the difference paid or refunded through a payment method."""
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be modified")
        self._check_items(order, item_ids)
        diff, variants = self._price_difference(order, item_ids, new_item_ids)
        method = self._payment(self._user(order["user_id"]), payment_method_id)
        if self._is_gift_card(method) and method["balance"] < diff:
            raise ToolError("Insufficient gift card balance to pay for the new item")
        order["payment_history"].append({
            "transaction_type": "payment" if diff > 0 else "refund",
            "amount": abs(diff), "payment_method_id": payment_method_id})
        if self._is_gift_card(method):
            method["balance"] = round(method["balance"] - diff, 2)
        # As the suite's replay shows, each changed item takes its new item id but the price
        # and options of the LAST new variant (upstream's loop reads a variable left over from
        # the price loop); reproduced so that the database after the gold actions agrees.
        last = variants[-1]
        for item_id, variant in zip(item_ids, variants, strict=True):
            item = next(i for i in order["items"] if i["item_id"] == item_id)
            item["item_id"] = variant["item_id"]
            item["price"] = last["price"]
            item["options"] = copy.deepcopy(last["options"])
        order["status"] = "pending (item modified)"
        return copy.deepcopy(order)

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Record:
        """Pay a pending order with another payment method: the new one charged, the old
        one refunded (gift cards at once)."""
        order = self._order(order_id)
        if order["status"] != "pending":
            raise ToolError("Non-pending order cannot be modified")
        user = self._user(order["user_id"])
        method = self._payment(user, payment_method_id)
        history = order["payment_history"]
        if len(history) != 1 or history[0]["transaction_type"] != "payment":
            raise ToolError("There should be exactly one payment for a pending order")
        old_id = history[0]["payment_method_id"]
        if old_id == payment_method_id:
            raise ToolError("The new payment method should be different from the current one")
        amount = history[0]["amount"]
        if self._is_gift_card(method) and method["balance"] < amount:
            raise ToolError("Insufficient gift card balance to pay for the order")
        history.extend([
            {"transaction_type": "payment", "amount": amount,
             "payment_method_id": payment_method_id},
            {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id}])
        if self._is_gift_card(method):
            method["balance"] = round(method["balance"] - amount, 2)
        old = user["payment_methods"].get(old_id)
        if old is not None and self._is_gift_card(old):
            old["balance"] = round(old["balance"] + amount, 2)
        return copy.deepcopy(order)

    def modify_user_address(self, user_id: str, address1: str, address2: str, city: str,
                            state: str, country: str, zip: str) -> Record:
        """Change a user's default address."""
        user = self._user(user_id)
        user["address"] = {"address1": address1, "address2": address2, "city": city,
                           "country": country, "state": state, "zip": zip}
        return copy.deepcopy(user)

    def return_delivered_order_items(self, order_id: str, item_ids: list[str],
                                     payment_method_id: str) -> Record:
        """Ask to return items of a delivered order; the refund to the original payment
        method or a gift card."""
        order = self._order(order_id)
        if order["status"] != "delivered":
            raise ToolError("Non-delivered order cannot be returned")
        method = self._payment(self._user(order["user_id"]), payment_method_id)
        if (not self._is_gift_card(method)
                and payment_method_id != order["payment_history"][0]["payment_method_id"]):
            raise ToolError("Payment method should be either the original payment method or "
                            "a gift card")
        self._check_items(order, item_ids)
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        return copy.deepcopy(order)


OUTPUTS: dict[str, str] = {
    "calculate": "Text", "find_user_id_by_email": "Text", "find_user_id_by_name_zip": "Text",
    "transfer_to_human_agents": "Text", "get_order_details": "Order",
    "cancel_pending_order": "Order", "exchange_delivered_order_items": "Order",
    "modify_pending_order_address": "Order", "modify_pending_order_items": "Order",
    "modify_pending_order_payment": "Order", "return_delivered_order_items": "Order",
    "get_user_details": "User", "modify_user_address": "User",
    "get_product_details": "Product", "get_item_details": "Item",
    "list_all_product_types": "Types",
}
"""Each retail tool and the record it answers with (declared in :mod:`.tau2`'s catalog)."""

_TOP: dict[str, tuple[str, ...]] = {
    "Text": ("result",), "Order": ("order_id", "user_id", "status"),
    "User": ("user_id", "email"), "Product": ("product_id", "name"),
    "Item": ("item_id",), "Types": (),
}
_ADDRESS = ("address1", "address2", "city", "state", "country", "zip")
_ORDERS, _METHODS, _ITEMS, _PAYMENTS = 10, 5, 5, 3  # the most db.json holds: 9, 4, 5, 2
_VARIANTS = 20  # the most variants a product of db.json has: 20

NESTED: dict[str, dict[str, tuple[str | int, ...]]] = {
    "User": {**{f: ("address", f) for f in _ADDRESS},
             **{f"order_{i}": ("orders", i - 1) for i in range(1, _ORDERS + 1)},
             **{f"payment_method_{i}": ("payment_methods", i - 1, "id")
                for i in range(1, _METHODS + 1)}},
    "Order": {**{f: ("address", f) for f in _ADDRESS},
              **{f"item_{i}": ("items", i - 1, "item_id") for i in range(1, _ITEMS + 1)},
              **{f"product_{i}": ("items", i - 1, "product_id") for i in range(1, _ITEMS + 1)},
              **{f"payment_{i}": ("payment_history", i - 1, "payment_method_id")
                 for i in range(1, _PAYMENTS + 1)}},
    "Product": {f"variant_{i}": ("variants", i - 1, "item_id")
                for i in range(1, _VARIANTS + 1)},
}
"""The values nested in an output that a record also lifts into a field of its own, by path: a
user's address parts, its ``i``-th order id (``order_2``) and payment method id; an order's
address parts, its ``i``-th item and that item's product id (``item_1``, ``product_1``) and the
method of its ``i``-th payment; a product's ``i``-th variant's item id (``variant_3``, the
``new_item_ids`` of an exchange). A later call given one of them (``get_order_details`` of the
user's second order) then references it (``seq a0.order_2``) instead of pasting it. An integer
step indexes a list, or a mapping in its order (``payment_methods`` is keyed by method id); a
path the output does not have lifts null."""

KEYS: dict[str, tuple[str, ...]] = {k: (*v, *NESTED.get(k, {})) for k, v in _TOP.items()}
"""The scalar fields each record lifts out of the tool's output (a later call can reference
them): its key fields, then the :data:`NESTED` ones; the whole output is the record's
``value``."""


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` in a JSON output (None when it has no such path)."""
    for step in path:
        if isinstance(step, int):
            items = list(value.values()) if isinstance(value, dict) else value
            if not isinstance(items, list) or step >= len(items):
                return None
            value = items[step]
        elif isinstance(value, dict):
            value = value.get(step)
        else:
            return None
    return value


def as_record(kind: str, output: Any) -> Record:
    """A tool's output as its record: ``result`` for a text, else the key fields and the
    :data:`NESTED` values lifted out of the object, and the whole object as ``value``."""
    if kind == "Text":
        return {"result": output}
    rec: Record = {k: (output or {}).get(k) for k in _TOP[kind]}
    for name, path in NESTED.get(kind, {}).items():
        got = _at(output, path)
        rec[name] = got if isinstance(got, str) else None
    rec["value"] = output
    return rec


def retail_tools(env: RetailEnv) -> dict[str, Callable[..., Record]]:
    """The python backend's ``TOOLS`` over ``env``: ``tau2_retail.<tool>`` for every tool."""
    tools: dict[str, Callable[..., Record]] = {}
    for name, kind in OUTPUTS.items():
        method = getattr(env, name)

        def op(*, _m: Callable[..., Any] = method, _k: str = kind, **kw: Any) -> Record:
            return as_record(_k, _m(**kw))

        op.__name__, op.__doc__ = name, method.__doc__
        tools[f"{PLATFORM}.{name}"] = env.tool(op)
    return tools
