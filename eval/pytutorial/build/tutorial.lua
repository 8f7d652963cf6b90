-- Admonitions (note, warning, seealso) become block quotes headed by a bold
-- label instead of raw <div> HTML; unlabeled literal blocks get a language so
-- that the gfm writer emits fenced (```) code blocks.
local labels = {note = "Note", warning = "Warning", seealso = "See also"}

function Div(el)
  if el.classes:includes("title") then return nil end
  local label = nil
  for _, c in ipairs(el.classes) do
    if labels[c] then label = labels[c] end
  end
  local blocks = {}
  for _, b in ipairs(el.content) do
    if b.t == "Div" and b.classes:includes("title") then
      label = pandoc.utils.stringify(b)
    else
      table.insert(blocks, b)
    end
  end
  if label then
    table.insert(blocks, 1, pandoc.Para({pandoc.Strong({pandoc.Str(label .. ":")})}))
    return pandoc.BlockQuote(blocks)
  end
  return blocks
end

function CodeBlock(el)
  if #el.classes == 0 then
    if el.text:match("^%s*>>>") then
      el.classes = {"pycon"}
    else
      el.classes = {"text"}
    end
    return el
  end
end
