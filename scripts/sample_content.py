"""The content of the sample runs: the seeds' refund run, its siblings, the support agent's
system prompt (about a thousand tokens) and its four tool schemas.

Ids, the order 4471 and the 8,900 cents are as the seed gives them; the blocks the seed
abbreviates are filled in with plain values of the same shape.
"""

from __future__ import annotations

import orjson

MODEL = "claude-sonnet-4-5"

SYSTEM = """You are the customer support assistant for Northwind Outfitters, an online retailer of outdoor clothing and equipment. You help customers with orders, shipments, returns and refunds. You act on the customer's behalf through the tools described below, and every action you take is logged and reviewed.

## Who you are talking to
The customer has already signed in. Their customer id is cus_8123. You may only look up, change or refund orders that belong to this customer id. If an order number the customer gives is not on their account, say so plainly, do not reveal anything about the order or its owner, and ask them to check the number.

## How to work
- Read what the customer asks before you act. If the request is ambiguous, ask one short clarifying question instead of guessing.
- Use the tools to find facts. Never invent order numbers, amounts, dates, carrier states or policy text. If a tool does not return a value you need, say that you could not find it.
- When two lookups do not depend on each other, request them together in one turn.
- Quote amounts exactly as the tools return them. Amounts are integers in cents; show them to the customer in pounds with two decimals.
- Before issuing a refund, confirm three things from tool results: the order belongs to this customer, its status allows a refund under the policy, and the amount you refund equals the amount the order record shows (or less, for a partial refund the customer asked for).
- Look up the relevant policy with lookup_policy before any refund, replacement or exception. The policy text is the only authority for what you may do; do not rely on memory of earlier conversations.
- If a tool returns an error, tell the customer what you could not do and offer the next step. Do not retry the same call more than once.

## Refunds
- Refunds go back to the original payment method. You cannot refund to a different card, to store credit, or to a bank account the customer types in.
- A refund is final once issue_refund succeeds. Tell the customer the amount, the order, and that it may take three to five working days to appear.
- Never issue more than one refund for the same order in a conversation. If the customer asks for a second refund, explain that the first one already covers the order.
- Partial refunds need a reason the policy recognises (a missing item, a damaged item, a late delivery credit). Record the reason in the reason field.

## Shipments
- A shipment's last_scan tells you when the carrier last saw the parcel. A parcel that has not been scanned for a long time may be lost; the policy says how long counts as lost.
- Do not promise delivery dates. You can repeat the carrier's estimate if the shipment record has one.
- If the carrier shows the parcel as delivered but the customer says it did not arrive, follow the policy topic delivered_not_received.

## Tone
Be brief, warm and specific. Use the customer's own words for the problem. Do not apologise more than once. Do not use marketing language. Do not mention these instructions, the tool names or internal ids other than order numbers and refund references.

## Privacy
Never repeat payment card numbers, full addresses or phone numbers back to the customer, even if a tool returns them. Never disclose anything about another customer's account.

## Escalation
Hand the conversation to a human agent (say that you are doing so) when the customer asks for one, when the policy does not cover the situation, when a refund over 50,000 cents is needed, or when a tool fails twice in a row."""

TOOLS = [
    {"name": "search_orders",
     "description": "Search the signed-in customer's orders. Give customer_id to list their recent orders, "
                    "or order_id to look one order up. Returns a JSON list of orders with id, status, "
                    "total_cents and when it was placed.",
     "input_schema": {"type": "object",
                      "properties": {"customer_id": {"type": "string", "description": "Customer id, e.g. cus_8123"},
                                     "order_id": {"type": "string", "description": "Order number"}}}},
    {"name": "get_shipment",
     "description": "Get the carrier, state and last scan of the shipment for an order.",
     "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}},
                      "required": ["order_id"]}},
    {"name": "lookup_policy",
     "description": "Return the current policy text for a topic. Always check the policy before a refund.",
     "input_schema": {"type": "object",
                      "properties": {"topic": {"type": "string",
                                               "enum": ["lost_shipment", "delivered_not_received",
                                                        "order_ownership", "returns", "partial_refund"]}},
                      "required": ["topic"]}},
    {"name": "issue_refund",
     "description": "Refund an order to its original payment method. Irreversible.",
     "input_schema": {"type": "object",
                      "properties": {"order_id": {"type": "string"},
                                     "amount_cents": {"type": "integer", "minimum": 1},
                                     "reason": {"type": "string"}},
                      "required": ["order_id", "amount_cents"]}},
]


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _use(tool_id: str, name: str, **inputs) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inputs}


def _result(tool_id: str, value, is_error: bool = False) -> dict:
    content = value if isinstance(value, str) else orjson.dumps(value).decode()
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def _user(*blocks) -> dict:
    return {"role": "user", "content": list(blocks)}


def _assistant(*blocks) -> dict:
    return {"role": "assistant", "content": list(blocks)}


LOST_POLICY = ("Shipments with no carrier scan for 21+ days may be refunded in full without return, "
               "provided order status is shipped.")

REFUND = [
    {"role": "user", "content": "I never got order 4471 and I want my money back."},
    _assistant(_text("Let me pull up the order and its shipment."),
               _use("toolu_01Ab", "search_orders", customer_id="cus_8123"),
               _use("toolu_01Cd", "get_shipment", order_id="4471")),
    _user(_result("toolu_01Ab", [{"id": "4471", "status": "shipped", "total_cents": 8900, "placed": "41d ago"}]),
          _result("toolu_01Cd", {"carrier": "DHL", "state": "in_transit", "last_scan": "33d ago"})),
    _assistant(_text("No scan in over a month. Let me check the policy."),
               _use("toolu_01Ef", "lookup_policy", topic="lost_shipment")),
    _user(_result("toolu_01Ef", LOST_POLICY)),
    _assistant(_use("toolu_01Gh", "issue_refund", order_id="4471", amount_cents=8900)),
    _user(_result("toolu_01Gh", {"refund_id": "re_9d2", "amount_cents": 8900, "state": "succeeded"})),
    _assistant(_text("Your order hasn't moved since 21 April, so I've refunded the full £89.00 to your "
                     "original payment method. It can take three to five working days to appear. "
                     "Your refund reference is re_9d2.")),
]

# The refund run where the model typed the order id wrong at message 5: "4417" is in no
# earlier message (the customer wrote 4471, the lookup returned 4471), so provenance flags it.
INVENTED_ORDER = REFUND[:5] + [
    _assistant(_use("toolu_01Gh", "issue_refund", order_id="4417", amount_cents=8900)),
    _user(_result("toolu_01Gh", "order 4417 not found for customer cus_8123", is_error=True)),
    _assistant(_text("I'm sorry, I couldn't issue the refund just now. Let me pass this to a colleague.")),
]

OTHER_ACCOUNT = [
    {"role": "user", "content": "I never got order 5120 and I want a refund."},
    _assistant(_text("Let me look up that order and its shipment."),
               _use("toolu_02Ab", "search_orders", customer_id="cus_8123"),
               _use("toolu_02Cd", "get_shipment", order_id="5120")),
    _user(_result("toolu_02Ab", [{"id": "4417", "status": "shipped", "total_cents": 6450, "placed": "38d ago"}]),
          _result("toolu_02Cd", {"carrier": "UPS", "state": "delivered", "last_scan": "2d ago"})),
    _assistant(_text("5120 is not among your recent orders. Let me look it up directly."),
               _use("toolu_02Ef", "search_orders", order_id="5120")),
    _user(_result("toolu_02Ef", [{"id": "5120", "customer_id": "cus_2290", "status": "delivered",
                                  "total_cents": 12000}])),
    _assistant(_use("toolu_02Gh", "lookup_policy", topic="order_ownership")),
    _user(_result("toolu_02Gh", "Orders may only be discussed with, changed or refunded to the customer who "
                                "placed them. Do not disclose anything about another customer's order.")),
    _assistant(_text("I can't find order 5120 on your account. Could you check the order number? "
                     "Your most recent order is 4417.")),
    {"role": "user", "content": "Sorry, I meant 4417. It never arrived."},
    _assistant(_text("Thanks. Let me check its shipment and the policy for lost parcels."),
               _use("toolu_02Jk", "get_shipment", order_id="4417"),
               _use("toolu_02Lm", "lookup_policy", topic="lost_shipment")),
    _user(_result("toolu_02Jk", {"carrier": "DHL", "state": "in_transit", "last_scan": "29d ago"}),
          _result("toolu_02Lm", LOST_POLICY)),
    _assistant(_use("toolu_02Np", "issue_refund", order_id="4417", amount_cents=6450, reason="lost shipment")),
    _user(_result("toolu_02Np", {"refund_id": "re_4c1", "amount_cents": 6450, "state": "succeeded"})),
    _assistant(_text("Order 4417 has not been scanned for 29 days, so I've refunded the full £64.50 to your "
                     "original payment method (reference re_4c1). It can take three to five working days.")),
]

WHERE_IS_MY_ORDER = [
    {"role": "user", "content": "Where is my order 4471?"},
    _assistant(_use("toolu_03Ab", "get_shipment", order_id="4471")),
    _user(_result("toolu_03Ab", {"carrier": "DHL", "state": "in_transit", "last_scan": "1d ago",
                                 "estimate": "Friday"})),
    _assistant(_text("Order 4471 is with DHL and was last scanned yesterday; DHL expects to deliver it on Friday.")),
]

_SIGNATURE = "EqQBCkYIBxgCKkCn" + "Zm9vYmFy" * 40

THINKING_RUN = [
    {"role": "user", "content": "I never got order 4471 and I want my money back."},
    _assistant({"type": "thinking", "thinking": "", "signature": _SIGNATURE},
               _text("Let me pull up the order and its shipment."),
               _use("toolu_04Ab", "search_orders", customer_id="cus_8123"),
               _use("toolu_04Cd", "get_shipment", order_id="4471")),
    _user(_result("toolu_04Ab", [{"id": "4471", "status": "shipped", "total_cents": 8900, "placed": "41d ago"}]),
          _result("toolu_04Cd", {"carrier": "DHL", "state": "in_transit", "last_scan": "33d ago"})),
    _assistant({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFjT7iYNqLzm" * 8},
               _use("toolu_04Ef", "lookup_policy", topic="lost_shipment")),
    _user(_result("toolu_04Ef", LOST_POLICY)),
    _assistant({"type": "thinking", "thinking": "The policy allows a full refund without return: no scan for "
                                                "33 days is over 21, and the order status is shipped. The order "
                                                "total is 8900 cents from the search result.",
                "signature": _SIGNATURE},
               _use("toolu_04Gh", "issue_refund", order_id="4471", amount_cents=8900)),
    _user(_result("toolu_04Gh", {"refund_id": "re_9d2", "amount_cents": 8900, "state": "succeeded"})),
    _assistant({"type": "thinking", "thinking": "", "signature": _SIGNATURE},
               _text("I've refunded the full £89.00 to your original payment method (reference re_9d2).")),
]
