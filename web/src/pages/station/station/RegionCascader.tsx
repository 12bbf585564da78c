import { Cascader } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { regionChildren, rootRegion } from '../../../api/system/region'
import { optionOf, withChildrenAt, type RegionOption } from './regionTree'

interface Props {
  value?: string[]
  onChange?: (value: string[]) => void
  disabled?: boolean
  changeOnSelect?: boolean
  testId?: string
  style?: React.CSSProperties
}

/**
 * Province / city / district from the region API, one level at a time (`region/lazy-list`). A
 * given value has its path loaded up front so it shows by name.
 */
export default function RegionCascader({
  value,
  onChange,
  disabled,
  changeOnSelect = true,
  testId = 'field-region',
  style,
}: Props) {
  const { t } = useTranslation()
  const [options, setOptions] = useState<RegionOption[]>([])
  const initial = JSON.stringify(value ?? [])

  useEffect(() => {
    let live = true
    const path = JSON.parse(initial) as string[]
    void (async () => {
      try {
        let tree = (await regionChildren(rootRegion)).map(optionOf)
        // Children of every chosen level but the last, so the chosen names can show.
        for (let i = 0; i < path.length - 1 && i < 2; i++) {
          const children = (await regionChildren(path[i])).map(optionOf)
          tree = withChildrenAt(tree, path.slice(0, i + 1), children)
        }
        if (live) setOptions(tree)
      } catch {
        // shown by the request client
      }
    })()
    return () => {
      live = false
    }
    // Loaded once per mount: later changes come from the cascader itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const loadData = async (selected: RegionOption[]) => {
    const path = selected.map((option) => option.value)
    try {
      const children = (await regionChildren(path[path.length - 1])).map(optionOf)
      setOptions((prev) => withChildrenAt(prev, path, children))
    } catch {
      // shown by the request client
    }
  }

  return (
    <Cascader<RegionOption>
      data-testid={testId}
      options={options}
      value={value}
      disabled={disabled}
      changeOnSelect={changeOnSelect}
      loadData={(selected) => void loadData(selected)}
      onChange={(next) => onChange?.(next ?? [])}
      placeholder={t('stationUi.field.regionPlaceholder')}
      allowClear
      showSearch={false}
      style={style ?? { width: '100%' }}
    />
  )
}
