"""The admin calls about people: authors and viewers, invites, who is calling, and the
audit trail (`arena.services.people`; who may make each is `arena.server.permissions`'s)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from arena import wire_admin
from arena.server.admin_calls import ServicesAccess, management_call
from arena.server.permissions import current_caller
from arena.v1 import admin_pb2


class PeopleCalls(ServicesAccess):
    """`AddAuthor`, `ListAuthors`, `RemoveAuthor`, `RotateAuthorToken`, `SetAuthor`,
    `CreateInvite`, `RegisterAuthor`, `WhoAmI` and `ListAudit`."""

    @management_call
    async def AddAuthor(self, request: admin_pb2.AddAuthorRequest,
                        context: Any) -> admin_pb2.AuthorTokenResponse:
        """Add an author or a viewer; their token is shown only in this answer."""
        author, token = await asyncio.to_thread(
            self.services_for("AddAuthor").people.add, request.name, request.role,
            request.may_run, wire_admin.quota_changes(request.quota))
        return admin_pb2.AuthorTokenResponse(author=wire_admin.author_info(author),
                                             token=token)

    @management_call
    async def ListAuthors(self, request: admin_pb2.ListAuthorsRequest,
                          context: Any) -> admin_pb2.ListAuthorsResponse:
        """Every author and viewer, with their bots, and the invites."""
        authors, invites = await asyncio.to_thread(self.services_for("ListAuthors").people.authors)
        return admin_pb2.ListAuthorsResponse(
            authors=[wire_admin.author_info(a, bots) for a, bots in authors],
            invites=[wire_admin.invite_info(i) for i in invites])

    @management_call
    async def RemoveAuthor(self, request: admin_pb2.RemoveAuthorRequest,
                           context: Any) -> admin_pb2.RemoveAuthorResponse:
        """Remove an author: their token stops working and their bots retire."""
        services = self.services_for("RemoveAuthor")
        author, retired = await asyncio.to_thread(services.people.remove, request.name)
        for bot in retired:
            await services.bots.forget(bot)
        return admin_pb2.RemoveAuthorResponse(author=wire_admin.author_info(author),
                                              retired_bots=retired)

    @management_call
    async def RotateAuthorToken(self, request: admin_pb2.RotateAuthorTokenRequest,
                                context: Any) -> admin_pb2.AuthorTokenResponse:
        """A new token for an author; the old one stops working."""
        author, token = await asyncio.to_thread(
            self.services_for("RotateAuthorToken").people.rotate, request.name)
        return admin_pb2.AuthorTokenResponse(author=wire_admin.author_info(author),
                                             token=token)

    @management_call
    async def SetAuthor(self, request: admin_pb2.SetAuthorRequest,
                        context: Any) -> admin_pb2.AuthorInfo:
        """Change an author's quota and whether they may run competitions."""
        author = await asyncio.to_thread(
            self.services_for("SetAuthor").people.change, request.name,
            wire_admin.quota_changes(request.quota),
            request.may_run if request.HasField("may_run") else None)
        return wire_admin.author_info(author)

    @management_call
    async def CreateInvite(self, request: admin_pb2.CreateInviteRequest,
                           context: Any) -> admin_pb2.CreateInviteResponse:
        """A new invite code; shown only in this answer."""
        invite, code = await asyncio.to_thread(
            self.services_for("CreateInvite").people.invite, request.cap or 1, request.role)
        return admin_pb2.CreateInviteResponse(code=code, invite=wire_admin.invite_info(invite))

    @management_call
    async def RegisterAuthor(self, request: admin_pb2.RegisterAuthorRequest,
                             context: Any) -> admin_pb2.AuthorTokenResponse:
        """Register an author on an invite code; their token is shown only here."""
        author, token = await asyncio.to_thread(
            self.services_for("RegisterAuthor").people.register, request.invite, request.name)
        return admin_pb2.AuthorTokenResponse(author=wire_admin.author_info(author),
                                             token=token)

    @management_call
    async def WhoAmI(self, request: admin_pb2.WhoAmIRequest,
                     context: Any) -> admin_pb2.WhoAmIResponse:
        """Who the caller's token names, and what it may do."""
        caller = current_caller()
        response = admin_pb2.WhoAmIResponse(role=caller.role.value, name=caller.name,
                                            may_run=caller.may_run)
        if caller.quota is not None:
            response.quota.CopyFrom(wire_admin.quota_info(caller.quota))
        if caller.author_id is not None:
            response.bots.extend(await asyncio.to_thread(
                self.services_for("WhoAmI").people.bots_of, caller.author_id))
        return response

    @management_call
    async def ListAudit(self, request: admin_pb2.ListAuditRequest,
                        context: Any) -> admin_pb2.ListAuditResponse:
        """The audit trail, newest first: an author's own lines, or (the organizer's)
        everyone's or one author's."""
        people = self.services_for("ListAudit").people
        caller = current_caller()
        limit = request.limit or 100
        if caller.author_id is not None:
            if request.author and request.author != caller.name:
                await context.abort(
                    grpc.StatusCode.PERMISSION_DENIED,
                    f"ListAudit of {request.author}'s lines needs the organizer's token; you "
                    f"are author {caller.name}, who reads only their own")
            entries = await asyncio.to_thread(people.audit_of, caller.author_id, limit)
        else:
            entries = await asyncio.to_thread(people.audit, request.author or None, limit)
        return admin_pb2.ListAuditResponse(lines=[wire_admin.audit_line(e) for e in entries])
