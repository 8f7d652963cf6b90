-- Number the headings as the published manual does (its toctree is :numbered:):
-- "# 4. Source packages", "## 4.1. Standards conformance", "### 4.9.1. ..." -- the
-- chapter number comes from the metadata field `chapter` (convert.py passes -M chapter=N).
-- `Default-role text` (a <cite> in the HTML) becomes *emphasis*.
-- Literal blocks without a language get the class `text` so that the gfm writer emits
-- fenced (```) code blocks instead of indented ones.

function Pandoc(doc)
  local chapter = tonumber(pandoc.utils.stringify(doc.meta.chapter))
  local counters = {}
  local blocks = doc.blocks:walk({
    Header = function(h)
      if h.level == 1 then
        counters = {chapter}
      else
        for l = #counters + 1, h.level do counters[l] = 0 end
        for l = h.level + 1, #counters do counters[l] = nil end
        counters[h.level] = counters[h.level] + 1
      end
      local parts = {}
      for l = 1, h.level do table.insert(parts, tostring(counters[l])) end
      local number = table.concat(parts, ".") .. ". "
      h.content:insert(1, pandoc.Str(number))
      return h
    end,
    Span = function(el)
      -- `text` (reST's default role, title-reference): Sphinx prints <cite>, in italics
      if el.classes:includes("title-ref") then return pandoc.Emph(el.content) end
    end,
    CodeBlock = function(el)
      if #el.classes == 0 then
        el.classes = {"text"}
      end
      return el
    end,
  })
  doc.blocks = blocks
  doc.meta.chapter = nil
  return doc
end
