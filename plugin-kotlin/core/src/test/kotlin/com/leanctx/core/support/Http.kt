/**
 * A small HTTP client for tests that talk to a real server on 127.0.0.1, the way the
 * daemon does: raw JSON bodies in, status and parsed JSON out.
 */
package com.leanctx.core.support

import com.google.gson.JsonElement
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

data class Answer(val status: Int, val body: String, val contentType: String?) {
    val json: JsonElement get() = JsonParser.parseString(body)
    val obj: JsonObject get() = json.asJsonObject

    /** The error code of an envelope answer. */
    val errorCode: String get() = obj.getAsJsonObject("error").get("code").asString
}

class Http(private val port: Int) {
    private val client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    fun post(path: String, body: String, token: String?, headers: Map<String, String> = emptyMap()): Answer = send("POST", path, body, token, headers)

    fun get(path: String, token: String? = null): Answer = send("GET", path, null, token)

    fun send(method: String, path: String, body: String?, token: String?, headers: Map<String, String> = emptyMap()): Answer {
        val b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:$port$path")).timeout(Duration.ofSeconds(20))
        if (token != null) b.header("X-LeanCtx-Token", token)
        headers.forEach(b::header)
        b.header("Content-Type", "application/json")
        b.method(method, if (body == null) HttpRequest.BodyPublishers.noBody() else HttpRequest.BodyPublishers.ofString(body))
        val r = client.send(b.build(), HttpResponse.BodyHandlers.ofString())
        return Answer(r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(null))
    }
}
