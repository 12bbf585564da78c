import { DeleteOutlined, PlusOutlined } from '@ant-design/icons'
import { App, Button, Image, Space, Spin, Typography } from 'antd'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { uploadStationImage, type StationImage } from '../../../api/station/station'
import { checkImages, MAX_IMAGES } from './logic'

interface Props {
  value?: StationImage[]
  onChange?: (value: StationImage[]) => void
  disabled?: boolean
}

/**
 * The station's images: up to 5 jpg/png, uploaded to the server's file storage as they are chosen
 * (the station keeps their attach ids). A selection that would break the rules is refused whole
 * with the spec's message; the server checks again when the station is saved.
 */
export default function ImageField({ value = [], onChange, disabled }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const input = useRef<HTMLInputElement>(null)
  const [uploading, setUploading] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

  const choose = async (files: File[]) => {
    const refused = checkImages(value.length, files)
    if (refused) {
      setProblem(t(refused))
      void message.error(t(refused))
      return
    }
    setProblem(null)
    setUploading(true)
    const added: StationImage[] = []
    try {
      for (const file of files) added.push(await uploadStationImage(file))
    } catch {
      // shown by the request client; the ones uploaded so far are kept
    } finally {
      setUploading(false)
      if (added.length > 0) onChange?.([...value, ...added])
    }
  }

  return (
    <div data-testid="station-images">
      <Space wrap align="start">
        {value.map((image) => (
          <div
            key={image.attachId}
            data-testid="station-image"
            style={{ position: 'relative', width: 96, height: 96 }}
          >
            <Image
              src={image.link}
              alt={image.originalName}
              width={96}
              height={96}
              style={{ objectFit: 'cover', borderRadius: 6 }}
            />
            {!disabled && (
              <Button
                size="small"
                danger
                shape="circle"
                icon={<DeleteOutlined />}
                data-testid="station-image-remove"
                aria-label={t('stationUi.image.remove')}
                style={{ position: 'absolute', top: 4, right: 4 }}
                onClick={() => onChange?.(value.filter((i) => i.attachId !== image.attachId))}
              />
            )}
          </div>
        ))}
        {!disabled && value.length < MAX_IMAGES && (
          <Button
            style={{ width: 96, height: 96 }}
            icon={uploading ? <Spin size="small" /> : <PlusOutlined />}
            disabled={uploading}
            data-testid="station-images-add"
            onClick={() => input.current?.click()}
          >
            {t('stationUi.image.add')}
          </Button>
        )}
      </Space>
      <input
        ref={input}
        type="file"
        multiple
        accept=".jpg,.jpeg,.png,image/jpeg,image/png"
        data-testid="station-images-input"
        style={{ display: 'none' }}
        disabled={disabled}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? [])
          // The same file chosen again must fire a change too.
          e.target.value = ''
          if (files.length > 0) void choose(files)
        }}
      />
      <div>
        <Typography.Text
          type={problem ? 'danger' : 'secondary'}
          data-testid="station-images-hint"
          style={{ fontSize: 12 }}
        >
          {problem ?? t('stationUi.image.hint', { max: MAX_IMAGES })}
        </Typography.Text>
      </div>
    </div>
  )
}
